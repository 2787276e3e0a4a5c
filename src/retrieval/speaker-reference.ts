// Who a question is about when it asks what someone said: "what did Dana say about the budget?", "according to the
// second speaker", "who suggested Postgres?". The reference is read from the words alone; the library then checks it
// against the names and labels its videos' speakers have, so "what did the report say" stays an ordinary question.

/** A speaker the question names, or that it asks for. */
export interface SpeakerReference {
  /** The name or label as the question gives it ("Dana", "the manager", "Speaker 2"); absent when it asks who. */
  name?: string;
  /** "who said …?": the answer is the speaker, with the moment. */
  asksWho: boolean;
  /** The question without the speaker part: what to look for ("the budget", "Postgres"). */
  rest: string;
}

const speechVerbs = "say|said|says|think|thinks|thought|suggest|suggests|suggested|mention|mentions|mentioned|propose|proposes|proposed|recommend|recommends|recommended|want|wants|wanted|ask|asks|asked|claim|claims|claimed|argue|argues|argued|explain|explains|explained|tell|tells|told|talk|talks|talked|announce|announced|decide|decided|conclude|concluded|feel|feels|felt";
const ordinals: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "6th": 6 };

const whoPattern = new RegExp(`^\\s*who\\s+(?:${speechVerbs}|was\\s+the\\s+one\\s+who\\s+(?:${speechVerbs}))\\b\\s*(.*?)[\\s?.!]*$`, "i");
const ordinalPattern = /\b(?:the\s+)?(first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th)\s+speaker\b/i;
const labelPattern = /\bspeaker\s+(\d{1,2})\b/i;
const accordingPattern = /\baccording\s+to\s+((?:the\s+)?[\p{L}][\p{L}'’-]*(?:\s+[\p{Lu}][\p{L}'’-]*){0,2})/iu;
const didPattern = new RegExp(`\\b(?:did|does|do|has|had)\\s+((?:the\\s+)?[\\p{L}][\\p{L}'’-]*(?:\\s+[\\p{L}][\\p{L}'’-]*){0,2}?)\\s+(?:${speechVerbs})\\b`, "iu");
const saidPattern = new RegExp(`^\\s*((?:the\\s+)?[\\p{Lu}][\\p{L}'’-]*(?:\\s+[\\p{Lu}][\\p{L}'’-]*){0,2})\\s+(?:${speechVerbs})\\b`, "u");
/** Words that fill the "who" slot of "what did … say" without naming anyone. */
const notNames = new Set(["you", "they", "he", "she", "it", "we", "i", "people", "someone", "anyone", "everyone", "video", "the video", "this video", "the film", "the talk", "the speaker", "the narrator", "this"]);

const clean = (text: string): string => text.replace(/\s+/g, " ").replace(/^[\s,;:]+|[\s?.!,;:]+$/g, "").trim();

/** The speaker a question refers to, or undefined when it names none. */
export function speakerReference(question: string): SpeakerReference | undefined {
  const who = whoPattern.exec(question);
  if (who) return { asksWho: true, rest: clean(who[1] ?? "") };
  const ordinal = ordinalPattern.exec(question);
  if (ordinal) return { name: `Speaker ${ordinals[(ordinal[1] ?? "").toLowerCase()]}`, asksWho: false, rest: clean(question.replace(ordinal[0], " ")) };
  const label = labelPattern.exec(question);
  if (label) return { name: `Speaker ${Number(label[1])}`, asksWho: false, rest: clean(question.replace(label[0], " ")) };
  for (const pattern of [accordingPattern, didPattern, saidPattern]) {
    const match = pattern.exec(question);
    const name = clean(match?.[1] ?? "");
    if (!match || !name || notNames.has(name.toLowerCase())) continue;
    return { name, asksWho: false, rest: clean(question.replace(match[0], " ")) };
  }
  return undefined;
}

/** The forms a name may be stored under: as written, and without a leading "the" ("the manager" → "manager"). */
export function speakerNameForms(name: string): string[] {
  const bare = name.replace(/^the\s+/i, "");
  return [...new Set([name, bare])];
}
