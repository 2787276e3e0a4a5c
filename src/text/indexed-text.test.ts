import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { tokenize } from "./analyze-text.js";
import { foldDiacritics } from "./fold-diacritics.js";
import { hasCjk, hasSpaceless, indexedText } from "./indexed-text.js";

test("CJK runs are indexed as overlapping pairs; other text is left exactly as it is", () => {
  assert.equal(indexedText("東京の天気"), " 東京 京の の天 天気 ");
  assert.equal(indexedText("Tokyo 東 trip"), "Tokyo  東  trip");
  assert.equal(indexedText("한국어 공부"), " 한국 국어   공부 ");
  const english = "Replace the brake pads, then bleed the brakes — 3 times!";
  assert.equal(indexedText(english), english);
  assert.ok(hasCjk("カタカナ") && hasCjk("漢字") && !hasCjk("Größe"));
  assert.deepEqual(tokenize("我们去东京"), ["我们", "们去", "去东", "东京"]);
  assert.deepEqual(tokenize("Where's the key?"), ["where", "s", "the", "key"]);
});

test("text in a language Snowball stems is indexed by its stems; English and unknown languages are left as they are", () => {
  assert.equal(indexedText("Die Häuser am Fluss", "de"), "die haus am fluss");
  assert.equal(indexedText("Les maisons", "fr"), "le maison");
  assert.equal(indexedText("The houses", "en"), "The houses");
  assert.equal(indexedText("The houses"), "The houses");
  assert.equal(indexedText("東京の天気", "ja"), " 東京 京の の天 天気 ");
});

test("Thai, Lao, Khmer and Burmese runs are indexed as their words, marks kept in the word; a question splits alike", () => {
  const line = "ฉันชอบกินข้าวผัดที่ร้านนี้";
  const words = tokenize(line);
  assert.deepEqual(words, ["ฉัน", "ชอบ", "กิน", "ข้าว", "ผัด", "ที่", "ร้าน", "นี้"]);
  assert.deepEqual(tokenize("ข้าวผัด"), ["ข้าว", "ผัด"]);
  // "ทำ" is one word: NFKC would split its last vowel in two, and the segmenter would then cut it wrongly.
  assert.deepEqual(tokenize("ฉันทำน้ำแข็ง Tokyo"), ["ฉัน", "ทำ", "น้ำ", "แข็ง", "tokyo"]);
  assert.deepEqual(tokenize("ຂ້ອຍມັກກິນເຂົ້າຫນຽວ"), ["ຂ້ອຍ", "ມັກ", "ກິນ", "ເຂົ້າ", "ຫນຽວ"]);
  assert.deepEqual(tokenize("ខ្ញុំចូលចិត្ត។"), ["ខ្ញុំ", "ចូលចិត្ត"]);
  assert.deepEqual(tokenize("ကျွန်တော်ထမင်းစား။"), ["ကျွန်တော်", "ထမင်းစား"]);
  // The index holds each word whole: its marks are private-use characters, one per mark.
  const indexed = indexedText(line);
  assert.equal(indexed.trim().split(" ").length, words.length);
  assert.doesNotMatch(indexed, /[\u0e31\u0e34-\u0e3a\u0e47-\u0e4e]/u);
  assert.equal(indexedText(line, "th", { spacelessAsRuns: true }), line);
  assert.ok(hasSpaceless("ข้าว") && hasSpaceless("ខ្ញុំ") && !hasSpaceless("東京 café"));
  // Folding leaves the marks of these scripts alone, in every language: they are vowels and tones, not accents.
  for (const text of [line, "ຂ້ອຍມັກກິນເຂົ້າຫນຽວ", "ខ្ញុំចូលចិត្ត", "ကျွန်တော်ဦး"]) for (const language of [undefined, "th", "de"]) assert.equal(foldDiacritics(text, language), text);
});

test("FTS5 keeps each Thai, Lao, Khmer and Burmese word whole as one token, and finds a word inside a line", () => {
  const db = new Database(":memory:");
  try {
    db.exec(`CREATE VIRTUAL TABLE docs USING fts5 (text, tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE terms USING fts5vocab (docs, row);`);
    const lines = ["ฉันชอบกินข้าวผัดที่ร้านนี้", "ຂ້ອຍມັກກິນເຂົ້າຫນຽວ", "ខ្ញុំចូលចិត្តញ៉ាំបាយ", "ကျွန်တော်ထမင်းစားချင်တယ်", "we ate fried rice"];
    const insert = db.prepare(`INSERT INTO docs (rowid, text) VALUES (?, ?)`);
    lines.forEach((line, index) => insert.run(index + 1, indexedText(line)));
    const tokenCount = (db.prepare(`SELECT count(*) FROM terms`).pluck().get() as number) - 4;
    assert.equal(tokenCount, lines.slice(0, 4).reduce((count, line) => count + tokenize(line).length, 0));
    const find = (word: string): number[] => db.prepare(`SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rowid`).pluck().all(`"${indexedText(word)}"`) as number[];
    assert.deepEqual(find("ข้าวผัด"), [1]);
    assert.deepEqual(find("ข้าว"), [1]);
    // Without its marks kept, "กิน" (eat) would be the tokens of "กัน" too.
    assert.deepEqual(find("กัน"), []);
    assert.deepEqual(find("ເຂົ້າ"), [2]);
    assert.deepEqual(find("ចូលចិត្ត"), [3]);
    assert.deepEqual(find("ထမင်းစား"), [4]);
    assert.deepEqual(find("rice"), [5]);
  } finally {
    db.close();
  }
});

test("text without Thai, Lao, Khmer or Burmese passes exactly as before", () => {
  for (const text of ["Replace the brake pads — 3 times!", "Die Häuser am Fluss", "東京の天気", "Привет, мир", "  spaced  out  "]) {
    assert.equal(indexedText(text, undefined, { spacelessAsRuns: true }), indexedText(text));
    assert.equal(indexedText(text, "de", { spacelessAsRuns: true }), indexedText(text, "de"));
  }
  assert.equal(indexedText("Tokyo 東 trip"), "Tokyo  東  trip");
  assert.deepEqual(tokenize("Where's the café?"), ["where", "s", "the", "café"]);
});
