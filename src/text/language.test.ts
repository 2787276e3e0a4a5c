import assert from "node:assert/strict";
import { test } from "node:test";
import { identifyLanguage, languageFromFileName, languageFromTag } from "./language.js";

test("language tags of streams, sidecars and users read as ISO 639-1", () => {
  const cases: [string | undefined, string | undefined][] = [
    ["de", "de"], ["ger", "de"], ["deu", "de"], ["pt-BR", "pt"], ["zh-Hans", "zh"], ["chi", "zh"], ["jpn", "ja"], ["en_US", "en"],
    ["German", "de"], ["JPN", "ja"], ["und", undefined], ["zxx", undefined], ["", undefined], [undefined, undefined], ["klingon", undefined], ["qqq", undefined],
  ];
  for (const [tag, code] of cases) assert.equal(languageFromTag(tag), code, String(tag));
});

test("a sidecar's name gives its language; a name without a tag gives none", () => {
  assert.equal(languageFromFileName("/films/talk.de.srt"), "de");
  assert.equal(languageFromFileName("film.pt-BR.forced.srt"), "pt");
  assert.equal(languageFromFileName("lecture.jpn.ass"), "ja");
  assert.equal(languageFromFileName("lecture.srt"), undefined);
  assert.equal(languageFromFileName("my.holiday.video.srt"), undefined, "words of a title are not tags");
});

test("short lines are identified in their language; too little text is no language", async () => {
  const lines: [string, string[]][] = [
    ["de", ["Wo ist der Schlüssel?", "Ich habe ihn gestern auf den Tisch gelegt.", "Dann suchen wir ihn zusammen."]],
    ["fr", ["Où est la clé ?", "Je l'ai posée sur la table hier soir.", "Alors cherchons-la ensemble."]],
    ["es", ["¿Dónde está la llave?", "La dejé ayer encima de la mesa.", "Entonces la buscamos juntos."]],
    ["zh", ["钥匙在哪里？", "我昨天把它放在桌子上了。", "那我们一起找吧。"]],
    ["ja", ["鍵はどこですか？", "昨日テーブルの上に置きました。", "じゃあ一緒に探しましょう。"]],
    ["en", ["Where is the key?", "I put it on the table yesterday evening.", "Then let us look for it together."]],
  ];
  for (const [language, text] of lines) assert.equal(await identifyLanguage(text), language, text.join(" / "));
  assert.equal(await identifyLanguage(["ok", "♪♪"]), undefined);
  assert.equal(await identifyLanguage([]), undefined);
});
