// The normalised name that identifies an entity in the graph, so that "The Brakes", "brake" and "brakes" from different
// chunks and videos become one node. Deliberately simple and idempotent: a key fed back in comes out unchanged.

const leadingArticles: ReadonlySet<string> = new Set(["the", "a", "an"]);

/** Singular forms English spelling rules cannot reach; also the -ves plurals, since "valves" → "valve" is the rule. */
const irregularSingulars: ReadonlyMap<string, string> = new Map([
  ["men", "man"],
  ["women", "woman"],
  ["children", "child"],
  ["feet", "foot"],
  ["teeth", "tooth"],
  ["geese", "goose"],
  ["mice", "mouse"],
  ["knives", "knife"],
  ["wives", "wife"],
  ["lives", "life"],
  ["leaves", "leaf"],
  ["loaves", "loaf"],
  ["halves", "half"],
  ["calves", "calf"],
  ["shelves", "shelf"],
  ["wolves", "wolf"],
  ["thieves", "thief"],
  ["scarves", "scarf"],
  ["analyses", "analysis"],
  ["crises", "crisis"],
  ["theses", "thesis"],
  ["hypotheses", "hypothesis"],
  ["parentheses", "parenthesis"],
  ["diagnoses", "diagnosis"],
  ["synopses", "synopsis"],
  ["oases", "oasis"],
  ["emphases", "emphasis"],
  ["criteria", "criterion"],
  ["phenomena", "phenomenon"],
]);

/** Words ending in s that are already singular (or have no singular worth merging). */
const keptAsWritten: ReadonlySet<string> = new Set([
  "news",
  "series",
  "species",
  "gas",
  "bias",
  "atlas",
  "canvas",
  "alias",
  "christmas",
  "texas",
  "vegas",
  "kansas",
  "arkansas",
  "thomas",
  "douglas",
  "pancreas",
  "overseas",
  "whereas",
  "lens",
  "chaos",
  "kudos",
  "always",
  "perhaps",
  "sometimes",
  "mathematics",
  "physics",
  "economics",
  "politics",
  "athletics",
  "gymnastics",
  "electronics",
  "ethics",
  "yes",
]);

/** -ies plurals of -ie words: "movies" is not "movy". */
const ieSingulars: ReadonlySet<string> = new Set([
  "movies",
  "cookies",
  "zombies",
  "rookies",
  "selfies",
  "hoodies",
  "brownies",
  "smoothies",
  "calories",
  "goalies",
  "veggies",
  "freebies",
  "newbies",
  "sweeties",
  "aussies",
  "budgies",
  "birdies",
  "genies",
  "prairies",
  "lingeries",
]);

/** -uses plurals of -us words: "buses" → "bus", while "houses" → "house" follows the rule. */
const usSingulars: ReadonlySet<string> = new Set([
  "buses",
  "viruses",
  "bonuses",
  "campuses",
  "statuses",
  "cactuses",
  "sinuses",
  "choruses",
  "fetuses",
  "geniuses",
  "octopuses",
  "walruses",
  "censuses",
  "surpluses",
  "syllabuses",
  "circuses",
  "apparatuses",
  "abacuses",
  "platypuses",
  "minibuses",
  "gases",
  "lenses",
  "biases",
  "atlases",
  "canvases",
  "aliases",
  "irises",
]);

/** -oes plurals of -oe words: "shoes" → "shoe", while "potatoes" → "potato" follows the rule. */
const oeSingulars: ReadonlySet<string> = new Set(["toes", "hoes", "foes", "floes", "oboes", "canoes", "throes", "tiptoes", "shoes"]);

/** Nouns ending in -che, whose plurals are not -ch + es ("headaches", "niches"). */
const cheEndings = ["ache", "cache", "niche", "quiche", "cliche", "mustache", "moustache", "avalanche", "creche", "panache"];

/** Words this short are left alone: "bus", "gas", "its", "yes" are not plurals worth guessing at. */
const shortestPlural = 4;

/** One word in the singular by simple English spelling rules; unknown forms are left alone rather than guessed. */
export function singularWord(word: string): string {
  const irregular = irregularSingulars.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length < shortestPlural || !word.endsWith("s") || keptAsWritten.has(word)) return word;
  if (word.endsWith("ss") || word.endsWith("us") || word.endsWith("is")) return word;
  if (word.endsWith("ies")) return ieSingulars.has(word) || word.length <= 4 ? word.slice(0, -1) : `${word.slice(0, -3)}y`;
  if (word.endsWith("es")) {
    const stem = word.slice(0, -2);
    if (usSingulars.has(word)) return stem;
    if (word.endsWith("sses") || word.endsWith("xes") || word.endsWith("shes") || word.endsWith("zzes")) return stem;
    if (word.endsWith("oes")) return oeSingulars.has(word) || word.endsWith("shoes") ? word.slice(0, -1) : stem;
    if (word.endsWith("ches")) {
      // "beaches" and "coaches" end like "ache" but are -ch words.
      if (stem.endsWith("each") || stem.endsWith("oach")) return stem;
      const single = word.slice(0, -1);
      return cheEndings.some((ending) => single.endsWith(ending)) ? single : stem;
    }
  }
  return word.slice(0, -1);
}

/**
 * The key an entity is merged by: NFKC, lowercase, possessive 's dropped, punctuation as spaces (apostrophes inside a
 * word dropped, so "don't" stays one word), leading articles dropped, the last word singular. "The Brakes" and "brake"
 * → "brake"; "Popeye's" → "popeye". Empty when nothing is left.
 */
export function entityNameKey(name: string): string {
  const words = name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/(?<=[\p{L}\p{N}])['’]s(?![\p{L}\p{N}])/gu, "")
    .replace(/(?<=[\p{L}\p{N}])['’](?=[\p{L}\p{N}])/gu, "")
    // A stutter written out in subtitles ("P-P-Popeye", "W-What") names the same thing as the word it stutters.
    .replace(/(?<![\p{L}\p{N}])((\p{L})-)+(?=\2)/gu, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "");
  let first = 0;
  while (first < words.length && leadingArticles.has(words[first] as string)) first++;
  const kept = words.slice(first);
  const last = kept.length - 1;
  if (last < 0) return "";
  kept[last] = singularWord(kept[last] as string);
  return kept.join(" ");
}
