import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { VideoRagError } from "../spec/index.js";
import { needsShared, sharedPath } from "../test-support/shared.js";
import { probeMedia } from "./probe.js";
import { runProcess } from "./run-process.js";
import { parseSubtitleText, type SubtitleCue } from "./subtitle-parse.js";
import { extractTextSubtitles, findSidecarSubtitles, readSubtitleFile, readSubtitles, renderBitmapSubtitles } from "./subtitles.js";

const dir = mkdtempSync(join(tmpdir(), "videorag-subtitles-test-"));
const file = (name: string): string => join(dir, name);
const ffmpeg = (...args: string[]) => runProcess("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-y", ...args]);
const subtitled = (name: string): string => sharedPath("media", "subtitled", name);

const noTesseract = spawnSync("tesseract", ["--version"]).error ? "tesseract is not installed (apt-get install tesseract-ocr)" : false;
const needsOcr = needsShared || noTesseract;

/** The OCR a caller would inject: tesseract reading one block of text. */
async function tesseract(image: Buffer): Promise<string> {
  return (await runProcess("tesseract", ["stdin", "stdout", "--psm", "6"], { input: image })).stdout.toString("utf8");
}

const words = (text: string): string => text.toLowerCase().replace(/[^a-z0-9']+/g, " ").trim();

before(async () => {
  if (needsShared) return;
  const muxed: [string, string][] = [
    ["friday-mov_text.mp4", "mov_text"],
    ["friday-subrip.mkv", "subrip"],
    ["friday-ass.mkv", "ass"],
  ];
  for (const [name, codec] of muxed) {
    await ffmpeg("-i", subtitled("friday.mp4"), "-i", subtitled("friday.vtt"), "-map", "0", "-map", "1", "-c", "copy", "-c:s", codec, file(name));
  }
});

after(() => rmSync(dir, { recursive: true, force: true }));

test("the sidecar with the video's exact stem wins, then an English one, then any language", async () => {
  const video = file("talk.mp4");
  writeFileSync(video, "");
  assert.equal(await findSidecarSubtitles(video), undefined);
  writeFileSync(file("talk2.srt"), "");
  writeFileSync(file("talk.mp4.txt"), "");
  assert.equal(await findSidecarSubtitles(video), undefined, "another stem or extension is not a sidecar");
  writeFileSync(file("talk.fr.srt"), "");
  assert.equal(await findSidecarSubtitles(video), file("talk.fr.srt"));
  writeFileSync(file("talk.en.srt"), "");
  assert.equal(await findSidecarSubtitles(video), file("talk.en.srt"));
  writeFileSync(file("talk.VTT"), "");
  assert.equal(await findSidecarSubtitles(video), file("talk.VTT"));
  for (const name of ["talk.VTT", "talk.en.srt"]) unlinkSync(file(name));
  writeFileSync(file("talk.eng.vtt"), "");
  assert.equal(await findSidecarSubtitles(video), file("talk.eng.vtt"));
});

test("a sidecar in Windows-1252 is read without mangling accents", async () => {
  writeFileSync(file("cafe.srt"), Buffer.from("1\r\n00:00:01,000 --> 00:00:02,000\r\nUn caf\xe9, s'il vous pla\xeet\r\n", "latin1"));
  assert.deepEqual(await readSubtitleFile(file("cafe.srt")), [{ startSecond: 1, endSecond: 2, text: "Un café, s'il vous plaît" }]);
});

test("one subtitle text in every encoding it is written in decodes to the same cues; binary data is INPUT_CORRUPT", async () => {
  const srt = "1\r\n00:00:01,000 --> 00:00:02,500\r\nDie Häuser am Fluß – «très» beau\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nÇa coûte 5 €\r\n";
  const expected = await (async () => {
    writeFileSync(file("utf8.srt"), srt, "utf8");
    return readSubtitleFile(file("utf8.srt"));
  })();
  assert.equal(expected[0]?.text, "Die Häuser am Fluß – «très» beau");
  const utf16be = Buffer.from(srt, "utf16le").swap16();
  const encodings: [string, Buffer][] = [
    ["UTF-8 with a byte order mark", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(srt, "utf8")])],
    ["UTF-16LE with a mark", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(srt, "utf16le")])],
    ["UTF-16BE with a mark", Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be])],
    ["UTF-16LE without a mark", Buffer.from(srt, "utf16le")],
    ["UTF-16BE without a mark", Buffer.from(utf16be)],
    ["Windows-1252", Buffer.from(new TextEncoderWindows1252().encode(srt))],
  ];
  for (const [name, bytes] of encodings) {
    writeFileSync(file("encoded.srt"), bytes);
    assert.deepEqual(await readSubtitleFile(file("encoded.srt")), expected, name);
  }
  // Latin-1 proper (no euro sign, no dashes): the same as its UTF-8 copy.
  const latin = "1\r\n00:00:01,000 --> 00:00:02,000\r\nDie Häuser am Fluß, très beau\r\n";
  writeFileSync(file("latin1.srt"), Buffer.from(latin, "latin1"));
  writeFileSync(file("latin1-utf8.srt"), latin, "utf8");
  assert.deepEqual(await readSubtitleFile(file("latin1.srt")), await readSubtitleFile(file("latin1-utf8.srt")));
  // Russian in Windows-1251: Cyrillic, not accented Latin.
  const russian = "1\r\n00:00:01,000 --> 00:00:02,000\r\nГде ключ от дома?\r\n";
  writeFileSync(file("cp1251.srt"), Buffer.from(cp1251(russian)));
  assert.equal((await readSubtitleFile(file("cp1251.srt")))[0]?.text, "Где ключ от дома?");
  writeFileSync(file("binary.srt"), Buffer.from([0x00, 0x01, 0x02, 0x7f, 0x45, 0x00, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00]));
  await assert.rejects(readSubtitleFile(file("binary.srt")), (error: unknown) => error instanceof VideoRagError && error.code === "INPUT_CORRUPT");
});

/** Windows-1252 bytes of text whose characters it holds (Latin-1 plus the euro sign and typographic dashes). */
class TextEncoderWindows1252 {
  encode(text: string): Uint8Array {
    const special: Record<string, number> = { "€": 0x80, "–": 0x96, "—": 0x97, "‘": 0x91, "’": 0x92, "“": 0x93, "”": 0x94 };
    return Uint8Array.from([...text], (char) => special[char] ?? char.charCodeAt(0));
  }
}

/** Windows-1251 bytes of Russian text: А–я are 0xC0–0xFF, Ё 0xA8, ё 0xB8. */
function cp1251(text: string): number[] {
  return [...text].map((char) => {
    const code = char.charCodeAt(0);
    if (code >= 0x410 && code <= 0x44f) return code - 0x410 + 0xc0;
    if (char === "Ё") return 0xa8;
    if (char === "ё") return 0xb8;
    return code;
  });
}

test("readSubtitles takes the sidecar beside the video first", { skip: needsShared }, async () => {
  const path = subtitled("friday.mp4");
  const found = await readSubtitles(path, await probeMedia(path));
  assert.equal(found.source, "sidecar");
  assert.equal(found.detail, "friday.vtt");
  assert.deepEqual(found.cues[0], { startSecond: 0, endSecond: 0.999, text: "Hildy!" });
  assert.equal(found.cues[2]?.text, "Tell me, is the lord of the universe in?");
});

test("embedded text streams (mov_text, SubRip, ASS) come back as the same cues", { skip: needsShared }, async () => {
  const expected = parseSubtitleText(readFileSync(subtitled("friday.vtt"), "utf8"));
  for (const name of ["friday-mov_text.mp4", "friday-subrip.mkv", "friday-ass.mkv"]) {
    // With the codec, as readSubtitles passes it: ASS streams are then read as ASS, not converted to SRT.
    const codec = (await probeMedia(file(name))).subtitleStreams[0]?.codec;
    const cues = await extractTextSubtitles(file(name), 0, { codec });
    assert.deepEqual(cues.map((cue) => cue.text), expected.map((cue) => cue.text), name);
    cues.forEach((cue, index) => assert.ok(Math.abs(cue.startSecond - (expected[index]?.startSecond ?? -1)) < 0.02, `${name} cue ${index}`));
  }
  const movText = file("friday-mov_text.mp4");
  const found = await readSubtitles(movText, await probeMedia(movText));
  assert.equal(found.source, "embedded-text");
  assert.match(found.detail, /mov_text/);
  assert.equal(found.cues.at(-1)?.text, "Somebody must've stolen the crown jewels");
});

test("a video with no subtitles anywhere says so", { skip: needsShared }, async () => {
  copyFileSync(subtitled("friday.mp4"), file("bare.mp4"));
  const found = await readSubtitles(file("bare.mp4"), await probeMedia(file("bare.mp4")));
  assert.deepEqual(found, { source: "none", cues: [], detail: "no sidecar subtitle file and no subtitle stream" });
});

test("bitmap subtitles without an OCR function are skipped with a reason", { skip: needsShared }, async () => {
  const path = subtitled("popeye_vobsub.mkv");
  const found = await readSubtitles(path, await probeMedia(path));
  assert.equal(found.source, "none");
  assert.match(found.detail, /bitmap subtitle stream .*dvd_subtitle.*no OCR/);
});

for (const [name, expectedCues] of [
  ["popeye_vobsub.mkv", 15],
  // This PGS track lacks four of the excerpt's fifteen lines.
  ["popeye_pgs.mkv", 11],
] as const) {
  test(`${name}: each bitmap cue is rendered once, at its own time, legible to tesseract`, { skip: needsOcr }, async () => {
    const path = subtitled(name);
    const reference = parseSubtitleText(readFileSync(subtitled("popeye_p3.eng.srt"), "utf8"));
    const started = performance.now();
    const found = await readSubtitles(path, await probeMedia(path), { recognize: tesseract });
    console.log(`${name}: ${found.cues.length} cues rendered and read in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    assert.equal(found.source, "embedded-bitmap");
    assert.equal(found.cues.length, expectedCues);

    // A cue matches a line of the human-made SRT with the same words starting within a second of it.
    const matched = found.cues.filter((cue) =>
      reference.some((line) => words(line.text) === words(cue.text) && Math.abs(line.startSecond - cue.startSecond) <= 1),
    );
    assert.ok(matched.length >= Math.ceil(expectedCues * 0.8), `only ${matched.length} of ${found.cues.length} cues match the SRT: ${JSON.stringify(found.cues)}`);
    for (const cue of found.cues) assert.ok(cue.endSecond > cue.startSecond, `cue at ${cue.startSecond} ends at ${cue.endSecond}`);
    const lifeboats = found.cues.find((cue) => words(cue.text) === "oh man the lifeboats");
    assert.ok(lifeboats && Math.abs(lifeboats.startSecond - 44.992) <= 1, "Oh, man the lifeboats at 45.0 s");
  });
}

test("the VobSub buzzard line is read at 57 s and ends when the next line starts", { skip: needsOcr }, async () => {
  const rendered = await renderBitmapSubtitles(subtitled("popeye_vobsub.mkv"), 0);
  const cues: SubtitleCue[] = [];
  for (const subtitle of rendered.filter((candidate) => candidate.startSecond > 56 && candidate.startSecond < 60)) {
    assert.equal(subtitle.image.subarray(1, 4).toString("latin1"), "PNG");
    cues.push({ startSecond: subtitle.startSecond, endSecond: subtitle.endSecond, text: await tesseract(subtitle.image) });
  }
  const buzzard = cues.find((cue) => /biggest buzzard/.test(cue.text));
  assert.ok(buzzard, JSON.stringify(cues));
  assert.ok(Math.abs(buzzard.startSecond - 57.0) < 0.5, `starts at ${buzzard.startSecond}`);
  assert.ok(Math.abs(buzzard.endSecond - 59.0) < 0.5, `ends at ${buzzard.endSecond}`);
});

test("asking for a subtitle stream the file lacks is ARGUMENT_INVALID", { skip: needsShared }, async () => {
  await assert.rejects(renderBitmapSubtitles(subtitled("popeye_pgs.mkv"), 3), (error: unknown) => VideoRagError.isInstance(error) && error.code === "ARGUMENT_INVALID");
});

// --- speakers -----------------------------------------------------------------------------------------------------------

const voicedVtt = `WEBVTT

00:00:01.000 --> 00:00:02.000
<v Dana>Welcome to the kitchen.</v>

00:00:02.000 --> 00:00:03.500 line:80%
<v.loud.angry Sam Lee>Where is the <i>flour</i>?

00:00:03.500 --> 00:00:05.000
<v Dana>In the cupboard.</v>
<v Sam Lee>Which one?</v>

00:00:05.000 --> 00:00:06.000
<v Tom &amp; Jerry>Both of us.</v> Applause.

00:00:06.000 --> 00:00:07.000
No voice here: just text.
`;

test("WebVTT voice spans name the speaker and leave the text; a cue with two voices becomes two cues", () => {
  assert.deepEqual(parseSubtitleText(voicedVtt), [
    { startSecond: 1, endSecond: 2, text: "Welcome to the kitchen.", speaker: "Dana" },
    { startSecond: 2, endSecond: 3.5, text: "Where is the flour?", speaker: "Sam Lee" },
    { startSecond: 3.5, endSecond: 5, text: "In the cupboard.", speaker: "Dana" },
    { startSecond: 3.5, endSecond: 5, text: "Which one?", speaker: "Sam Lee" },
    { startSecond: 5, endSecond: 6, text: "Both of us.", speaker: "Tom & Jerry" },
    { startSecond: 5, endSecond: 6, text: "Applause." },
    { startSecond: 6, endSecond: 7, text: "No voice here: just text." },
  ]);
});

test("SRT speaker prefixes in capitals are taken off the text; '- ' lines naming two people split the cue", () => {
  const srt = [
    "1\n00:00:01,000 --> 00:00:02,000\nDANA: Preheat the oven.",
    "2\n00:00:02,000 --> 00:00:04,000\n- DANA: Ready?\n- SAM LEE: Almost.",
    "3\n00:00:04,000 --> 00:00:05,000\n<i>DR. O'BRIEN:</i> It needs\nanother ten minutes.",
    "4\n00:00:05,000 --> 00:00:06,000\n- Yes.\n- No.",
    "5\n00:00:06,000 --> 00:00:07,000\nDANA: Fine.\n- Thanks.",
  ].join("\n\n");
  assert.deepEqual(parseSubtitleText(srt), [
    { startSecond: 1, endSecond: 2, text: "Preheat the oven.", speaker: "DANA" },
    { startSecond: 2, endSecond: 4, text: "Ready?", speaker: "DANA" },
    { startSecond: 2, endSecond: 4, text: "Almost.", speaker: "SAM LEE" },
    { startSecond: 4, endSecond: 5, text: "It needs another ten minutes.", speaker: "DR. O'BRIEN" },
    { startSecond: 5, endSecond: 6, text: "- Yes. - No." },
    { startSecond: 6, endSecond: 7, text: "Fine.", speaker: "DANA" },
    { startSecond: 6, endSecond: 7, text: "Thanks." },
  ]);
});

test("a Capitalised prefix names a speaker only when the name recurs in the file", () => {
  const cue = (second: number, text: string) => `${second}\n00:00:0${second},000 --> 00:00:0${second},900\n${text}`;
  const dialogue = parseSubtitleText([cue(1, "Dana: Hello."), cue(2, "Sam: Hi."), cue(3, "Dana: How are you?")].join("\n\n"));
  assert.deepEqual(
    dialogue.map((found) => [found.speaker, found.text]),
    [["Dana", "Hello."], [undefined, "Sam: Hi."], ["Dana", "How are you?"]],
  );
  const recipe = parseSubtitleText(cue(1, "Tomatoes: two cans."));
  assert.deepEqual(recipe, [{ startSecond: 1, endSecond: 1.9, text: "Tomatoes: two cans." }]);
});

test("colons that are not speaker prefixes keep their text and give no speaker", () => {
  const lines = [
    "At 10:30: the meeting starts.",
    "Go to http://x for the recipe.",
    "http://x",
    "The plan is simple: we wait.",
    "Note: the oven is hot.",
    "NOTE: the oven is hot.",
    "SO HE SAID: GO HOME.",
    "Step 3: fold the dough.",
    "10:30: coffee.",
    "Q: why?",
    "Time: 10:30.",
    "Ratio 2:1 works.",
  ];
  for (const text of lines) {
    const srt = `1\n00:00:01,000 --> 00:00:02,000\n${text}\n\n2\n00:00:03,000 --> 00:00:04,000\n${text}\n`;
    for (const cue of parseSubtitleText(srt)) assert.deepEqual(cue, { startSecond: cue.startSecond, endSecond: cue.endSecond, text }, text);
  }
});

test("ASS and SSA Dialogue lines: the Name field is the speaker; styling, layers and drawings are left out", () => {
  const ass = `[Script Info]
ScriptType: v4.00+

[V4+ Styles]
Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0

[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:03.50,0:00:05.00,Default,Sam,0,0,0,,{\\i1}Well,{\\i0} yes,\\Nof course.
Dialogue: 0,0:00:01.00,0:00:02.25,Default,Dana,0,0,0,,Hello, everyone.
Dialogue: 1,0:00:01.00,0:00:02.25,Default,Dana,0,0,0,,Hello, everyone.
Comment: 0,0:00:02.00,0:00:03.00,Default,Dana,0,0,0,,not shown
Dialogue: 0,0:00:02.50,0:00:03.00,Default,,0,0,0,,SAM: Thanks.
Dialogue: 0,0:00:05.00,0:00:06.00,Default,,0,0,0,,{\\p1}m 0 0 l 100 0 100 100 0 100{\\p0}
Dialogue: 0,0:00:06.00,0:00:07.00,Default,,0,0,0,,No name,\\hjust text.
`;
  assert.deepEqual(parseSubtitleText(ass), [
    { startSecond: 1, endSecond: 2.25, text: "Hello, everyone.", speaker: "Dana" },
    { startSecond: 2.5, endSecond: 3, text: "Thanks.", speaker: "SAM" },
    { startSecond: 3.5, endSecond: 5, text: "Well, yes, of course.", speaker: "Sam" },
    { startSecond: 6, endSecond: 7, text: "No name, just text." },
  ]);
  const ssa = `[Events]
Format: Marked, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: Marked=0,0:00:01.00,0:00:02.00,Default,Dana,0000,0000,0000,,Old format, same fields.
`;
  assert.deepEqual(parseSubtitleText(ssa), [{ startSecond: 1, endSecond: 2, text: "Old format, same fields.", speaker: "Dana" }]);
});

test("sidecar files keep their speakers; an .ass sidecar is found, after an .srt of the same rank", async () => {
  writeFileSync(file("kitchen.vtt"), voicedVtt);
  assert.deepEqual((await readSubtitleFile(file("kitchen.vtt")))[0], { startSecond: 1, endSecond: 2, text: "Welcome to the kitchen.", speaker: "Dana" });
  const video = file("anime.mkv");
  writeFileSync(video, "");
  writeFileSync(file("anime.ass"), "");
  assert.equal(await findSidecarSubtitles(video), file("anime.ass"));
  writeFileSync(file("anime.srt"), "");
  assert.equal(await findSidecarSubtitles(video), file("anime.srt"));
  writeFileSync(file("anime.en.ssa"), "");
  assert.equal(await findSidecarSubtitles(video), file("anime.srt"), "the exact stem still comes first");
});

test("embedded WebVTT and ASS streams keep their speakers, which ffmpeg's SRT conversion drops", async () => {
  const ass = `[Events]
Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
Dialogue: 0,0:00:01.00,0:00:02.00,Default,Dana,0,0,0,,Hello, there.
Dialogue: 0,0:00:02.00,0:00:03.00,Default,Sam,0,0,0,,Hi.
`;
  writeFileSync(file("voices.vtt"), voicedVtt);
  writeFileSync(file("names.ass"), `[Script Info]\nScriptType: v4.00+\n\n${ass}`);
  for (const [source, muxed, codec] of [
    ["voices.vtt", "embedded-voices.mkv", "webvtt"],
    ["names.ass", "embedded-names.mkv", "ass"],
  ] as const) {
    // Stream copy, so the file's own markup is what is muxed; a silent audio track makes it a media file to probe.
    await ffmpeg("-f", "lavfi", "-t", "8", "-i", "anullsrc=r=16000:cl=mono", "-i", file(source), "-map", "0:a", "-map", "1", "-c:a", "aac", "-c:s", "copy", file(muxed));
    const found = await readSubtitles(file(muxed), await probeMedia(file(muxed)));
    assert.equal(found.source, "embedded-text");
    assert.match(found.detail, new RegExp(codec));
    const expected = parseSubtitleText(readFileSync(file(source), "utf8"));
    assert.deepEqual(found.cues.map((cue) => [cue.speaker, cue.text]), expected.map((cue) => [cue.speaker, cue.text]), muxed);
    assert.ok(found.cues.some((cue) => cue.speaker !== undefined));
    const converted = await extractTextSubtitles(file(muxed), 0);
    assert.ok(converted.every((cue) => cue.speaker === undefined), `${muxed}: SRT has no speakers (else the native path is not needed)`);
  }
});
