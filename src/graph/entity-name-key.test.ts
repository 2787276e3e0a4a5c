import assert from "node:assert/strict";
import { test } from "node:test";
import { entityNameKey } from "./index.js";

test("names written differently get one key", () => {
  const cases: [string, string][] = [
    ["The Brakes", "brake"],
    ["brake", "brake"],
    ["Popeye's", "popeye"],
    ["P-P-Popeye!", "popeye"],
    ["W-What", "what"],
    ["T-shirt", "t shirt"],
    ["Popeye’s boat", "popeye boat"],
    ["an  Apple", "apple"],
    ["A", ""],
    ["the", ""],
    ["  ...  ", ""],
    ["Home-Depot!", "home depot"],
    ["ＨＯＭＥ DEPOT", "home depot"],
    ["boxes", "box"],
    ["cities", "city"],
    ["disc brakes", "disc brake"],
    ["glasses", "glass"],
    ["glass", "glass"],
    ["bus", "bus"],
    ["buses", "bus"],
    ["analysis", "analysis"],
    ["analyses", "analysis"],
    ["gas", "gas"],
    ["news", "news"],
    ["series", "series"],
    ["houses", "house"],
    ["churches", "church"],
    ["beaches", "beach"],
    ["headaches", "headache"],
    ["potatoes", "potato"],
    ["shoes", "shoe"],
    ["movies", "movie"],
    ["knives", "knife"],
    ["valves", "valve"],
    ["children", "child"],
    ["don't panic", "dont panic"],
    ["brakes pads", "brakes pad"],
  ];
  for (const [name, key] of cases) assert.equal(entityNameKey(name), key, name);
});

test("a key is its own key", () => {
  const names = ["The Brakes", "Popeye's", "boxes", "glasses", "analyses", "movies", "knives", "buses", "species", "lens", "status"];
  for (const name of names) {
    const key = entityNameKey(name);
    assert.equal(entityNameKey(key), key, name);
  }
});
