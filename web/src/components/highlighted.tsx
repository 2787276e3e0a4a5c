// A text with the query's words marked, matching the start of words so "jewel" marks "jewels".

const stopWords = new Set(
  "a an and are as at be but by did do does for from had has have he her his how i in is it its me my no not of on or she so that the their them there they this to was we were what when where which who why will with you your".split(" "),
);

function stem(word: string): string {
  const stripped = word.replace(/(?:ing|ed|es|s)$/, "");
  return stripped.length >= 3 ? stripped : word;
}

/** The pattern of a query's words, or undefined when it has none worth marking. */
export function queryPattern(query: string): RegExp | undefined {
  const words = (query.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((word) => word.length >= 2 && !stopWords.has(word));
  const stems = [...new Set(words.map(stem))].map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (stems.length === 0) return undefined;
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${stems.join("|")})[\\p{L}\\p{N}']*`, "giu");
}

export function Highlighted({ text, query }: { text: string; query: string }) {
  const pattern = queryPattern(query);
  if (!pattern) return <>{text}</>;
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > last) parts.push(text.slice(last, index));
    parts.push(<mark key={index}>{match[0]}</mark>);
    last = index + match[0].length;
  }
  parts.push(text.slice(last));
  return <>{parts}</>;
}
