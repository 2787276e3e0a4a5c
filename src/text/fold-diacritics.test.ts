// Diacritics folded as both stores' FTS5 tokenizer folds them, and kept where a language's alphabet holds the letter.

import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { termKeyFor, tokenize } from "./analyze-text.js";
import { foldDiacritics } from "./fold-diacritics.js";
import { indexedText } from "./indexed-text.js";

/** The terms FTS5 makes of each text with the stores' tokenizer, or with `remove_diacritics 0` (folding left to us). */
function fts5Terms(texts: string[], removeDiacritics: 0 | 2): string[] {
  const db = new Database(":memory:");
  try {
    db.exec(`CREATE VIRTUAL TABLE docs USING fts5 (text, tokenize = 'porter unicode61 remove_diacritics ${removeDiacritics}');
      CREATE VIRTUAL TABLE terms USING fts5vocab (docs, instance);`);
    const insert = db.prepare(`INSERT INTO docs (rowid, text) VALUES (?, ?)`);
    db.transaction(() => texts.forEach((text, index) => insert.run(index + 1, text)))();
    const result = texts.map(() => "");
    for (const { doc, term } of db.prepare(`SELECT doc, term FROM terms ORDER BY doc, offset`).all() as { doc: number; term: string }[]) {
      result[doc - 1] += `${term} `;
    }
    return result;
  } finally {
    db.close();
  }
}

test("without a language it folds exactly as the stores' FTS5 tokenizer does, letter for letter", () => {
  // Every letter, digit and mark up to U+2FFF (FTS5 folds nothing above U+212B), alone and after a Latin and a
  // Cyrillic letter, and words of the languages videos speak.
  const texts: string[] = [];
  for (let code = 0x80; code < 0x3000; code++) {
    const character = String.fromCodePoint(code);
    if (/[\p{L}\p{N}\p{M}]/u.test(character)) texts.push(`x${character}y`, `и${character}`);
  }
  texts.push("Crème brûlée", "Việt Nam", "Ελλάδα", "łódź", "ǟǡ", "cafe\u0301", "İstanbul", "Straße", "Øresund", "Ærø");
  const stores = fts5Terms(texts, 2);
  const folded = texts.map((text) => foldDiacritics(text));
  assert.deepEqual(fts5Terms(folded, 0), stores, "folding here and then FTS5 without folding is FTS5 folding");
  assert.deepEqual(fts5Terms(folded, 2), stores, "folding here first changes nothing the stores index today");
});

test("a language keeps the letters its alphabet holds and folds the other accents", () => {
  assert.equal(foldDiacritics("Crème brûlée à la carte", "fr"), "Creme brulee a la carte");
  assert.equal(foldDiacritics("El año de la canción", "es"), "El año de la cancion");
  assert.equal(foldDiacritics("El año", "fr"), "El ano");
  assert.equal(foldDiacritics("an\u0303o", "es"), "año", "a decomposed ñ is the letter");
  assert.equal(foldDiacritics("Får jag läsa?", "sv"), "Får jag läsa?");
  assert.equal(foldDiacritics("Häuser am Fluss", "de"), "Hauser am Fluss");
  assert.equal(foldDiacritics("Ação e coração", "pt"), "Acao e coracao");
  assert.equal(foldDiacritics("Tiếng Việt", "vi"), "Tiếng Việt");
  assert.equal(foldDiacritics("Москва, Ελλάδα, カタカナ", "ru"), "Москва, Ελλάδα, カタカナ");
  const ascii = "Replace the brake pads, then bleed the brakes — 3 times!";
  assert.equal(foldDiacritics(ascii), ascii);
});

test("text is stemmed with its accents, then folded: an unaccented question finds the accented word", () => {
  assert.equal(indexedText("Un café au lait", "fr"), "un caf au lait");
  assert.equal(indexedText("L'égalité des élèves", "fr"), "l'egal de elev");
  assert.equal(indexedText("cafe", "fr"), indexedText("café", "fr"));
  assert.equal(indexedText("canciones", "es"), indexedText("canción", "es"));
  assert.equal(indexedText("El año", "es"), "el año");
  assert.equal(indexedText("Die Häuser", "de"), "die haus");
  // English keeps its words: FTS5's Porter stems them after the same folding it always did.
  assert.equal(indexedText("A café in Zürich"), "A cafe in Zurich");
  // The question's words keep their accents (the store folds its terms itself; moments match them with termKey).
  assert.deepEqual(tokenize("Crème brûlée"), ["crème", "brûlée"]);
});

test("termKeyFor matches a language's words as its index does; English keeps Porter's key", () => {
  const french = termKeyFor("fr");
  assert.equal(french("Cafés"), french("cafe"));
  assert.equal(french("élèves"), french("élève"));
  const german = termKeyFor("de");
  assert.equal(german("Häuser"), german("Haus"));
  const spanish = termKeyFor("es");
  assert.notEqual(spanish("año"), spanish("ano"));
  const english = termKeyFor("en");
  assert.equal(english("replacing"), english("replaced"));
  assert.equal(termKeyFor(undefined)("café"), "café");
});
