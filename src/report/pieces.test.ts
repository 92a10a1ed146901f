// report.md and report.html in pieces (issue 39, "Output streams"): the pieces joined are the
// same bytes the report was as one string before, and a report of a huge text carries it capped
// (issue 39, "Bounded amplification"). The digests were taken of reportMarkdown and reportHtml
// as one string (commit 41c90c4, before the pieces) over src/report/reportSamples.ts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { reportHtml, reportHtmlPieces } from './html.ts';
import { reportMarkdown, reportMarkdownPieces, type ReportData } from './markdown.ts';
import { joinedPieces, jsonTextPieces, PIECE_CHARS } from './pieces.ts';
import { capCompaction, capText, leftOutWords, QUOTE_MAX, TEXT_MAX } from './quoteCap.ts';
import { SAMPLE_COMPACTION, SAMPLE_FIGURES, SAMPLE_IMAGES, SAMPLE_STAMP_LINES, SAMPLES } from './reportSamples.ts';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const URL = 'https://x/contract.md';

/** sha256 of each sample's report as one string, before the pieces */
const BEFORE: Record<string, string> = {
  'incident.md': '483419ba691aef47158ca963a1dbf59a2370004ee52c8ca6dff304eb9a361957',
  'incident.plain.md': '91e6fc5004a751132028944538e429b83d9b26c851fbebc0ffaee74476b1e529',
  'incident.html': 'e7c24239471bcaffaefb51ea382d6afc56014d05a0d37a73a2f103d4803f93e7',
  'incident.plain.html': '298a1069d02cd425085761ba317aa3d764923e5ae250b73c31a77589a2e112b2',
  'turns.md': 'cf3d8772709a370891fb11b21ac2d7571a6464775e59255f3c712f981ba65901',
  'turns.plain.md': 'fae4388547ed192e812fcc7ae5b458cc2629207e20a7d5cffc217bc6c35edc34',
  'turns.html': '907dc80303ba1f66973b7048bc758df37b32af23b5eea22714a2506b5eccc5e2',
  'turns.plain.html': '2ee34a28a8184dbf1b0cb35537ce84f05d65b9e4edd91b5e865a8c9661d182d4',
  'session.md': '1c43c885863bd29379be9cee13f70e3d2d690e4f2e2a7a367f89cea3f44cf10a',
  'session.plain.md': '249c009540e022cec1d963081e8ff5cbe09735cd945f07521cce687fc8b73ed5',
  'session.html': '6f38dcec3d358e17d15c2a66d70a3ff804e9abcc7150461d2158efe02c7c3781',
  'session.plain.html': '568a563bfaba1d57ebf5c816a102e2b3145a933945b9c85c1a91e90032f25ae3',
  'compaction.md': '8dd65251f0a4acdf3f796ee13597f68b1d32c67073c9d76828285a95bc94f47e',
  'compaction.plain.md': 'a9de57ec2743f843686960cd0a4050c46109a2178d3f4ca61b8d6a89aca6d628',
  'compaction.html': '437fb6864b7fb1a4adceaed4da7d1f1c54e064f0eb3eb4f425f05d6af0b16bea',
  'compaction.plain.html': '074f0b1ddeede308e303b22033ef2fd04ff28e93379da377c7d76769ce54cfd0',
  'encrypted.md': '6b79e85ea9f0aa6e11474cd907901a9515423f85a4a8da4ef4a17b7dd67d6742',
  'encrypted.plain.md': 'cf7983fa5e9da561308118048839a2aba6129e22037f50ec927812858b445b62',
  'encrypted.html': '8180655061f453c12dfdbb16cb9b5567a76556d2dab16509ac2d7d1dc330a17f',
  'encrypted.plain.html': '91466d5067648256b1e0fcd5dee85f1fcca5b49dfdd8a5c4fa3ea00390eb12af',
  'noSummary.md': 'a23ca85c4bec0283d8a84ea3a223345a02054667dd6b16690cc7417f72d13e06',
  'noSummary.plain.md': '7a449553a885d3668159eff2cb7939a89fad8e45c23f89b78b56c187380a9f46',
  'noSummary.html': '1cd20b1e0e942c78ba62a8834244b2475a8f5f6702fba073257814e2210be376',
  'noSummary.plain.html': '2fe153ef5008687d60614f5d4c48b0be9c59c3995b37652b3a36892b1a785ce1',
  'hugeSummary.md': '83ffbfbc70f697b49b0d5864748e83f2bdbd9c3c52bbfbc92165a7dd089af13a',
  'hugeSummary.plain.md': '486a092bcedee2dbfafccce92ac8a87e713029042e71ec670367c7c20f08768b',
  'hugeSummary.html': '77833edb561d139c90581a3c8cf841e0fb9a0e0588115f8953be1babfe03ff65',
  'hugeSummary.plain.html': '1bdc45a9e60d4d4765b020904aca78d3d0a1a76428ad1ac31c704178eaa8b091',
  'context.md': '539a28fd2d1ba148d95286908b3cd8daad30e56e9dee8bd2401a892a0e32d20a',
  'context.plain.md': 'c0ada6fbde808eedd623332d3e848fd7ade138646511280c4e37a5982e857d65',
  'context.html': 'c794a0e78ccd3689f1aeec16a593651378d455745bb0e0fa2d81291dab47a5f8',
  'context.plain.html': '44446d20896f15569fecac193e5688e57bbf0b57d8dea467b0de30856df15101',
};

/** the one line a summary past QUOTE_MAX was said with before (the only text that changed) */
const OLD_LEFT_OUT = (n: number): string => `_The summary goes on for ${n} more characters, left out of this report; the whole text is in the transcript._`;

function rendered(name: string, d: ReportData): Record<string, string[]> {
  return {
    [`${name}.md`]: [...reportMarkdownPieces(d, SAMPLE_IMAGES, URL, SAMPLE_STAMP_LINES)],
    [`${name}.plain.md`]: [...reportMarkdownPieces(d, [])],
    [`${name}.html`]: [...reportHtmlPieces(d, SAMPLE_FIGURES, URL)],
    [`${name}.plain.html`]: [...reportHtmlPieces(d, [])],
  };
}

describe('report.md and report.html in pieces', () => {
  it('are, joined, the bytes each report was as one string (every sample, both formats)', () => {
    const seen: string[] = [];
    for (const [name, d] of Object.entries(SAMPLES)) {
      for (const [key, pieces] of Object.entries(rendered(name, d))) {
        let text = pieces.join('');
        if (name === 'hugeSummary' && key.endsWith('.md')) {
          // the one change: the words after a summary cut at QUOTE_MAX
          const left = d.compaction!.summary_text.length - QUOTE_MAX;
          const now = `_${leftOutWords(left)}: a report quotes at most 65,536 characters of a summary; the whole text is in the transcript._`;
          expect(text).toContain(now);
          text = text.replace(now, OLD_LEFT_OUT(left));
        }
        expect(sha(text), key).toBe(BEFORE[key]);
        seen.push(key);
      }
    }
    expect(seen.sort()).toEqual(Object.keys(BEFORE).sort());
  });

  it('reportMarkdown and reportHtml are their pieces joined', () => {
    const d = SAMPLES.compaction!;
    expect(reportMarkdown(d, SAMPLE_IMAGES, URL)).toBe([...reportMarkdownPieces(d, SAMPLE_IMAGES, URL)].join(''));
    expect(reportHtml(d, SAMPLE_FIGURES, URL)).toBe([...reportHtmlPieces(d, SAMPLE_FIGURES, URL)].join(''));
  });

  it('hands a long report on in pieces of about PIECE_CHARS, never as one string', () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({ ...SAMPLE_COMPACTION.items[0]!, text: `/repo/src/module${i}/file${i}.ts`, from_turn: i }));
    const d: ReportData = { ...SAMPLES.compaction!, compaction: { ...SAMPLE_COMPACTION, items } };
    for (const pieces of [[...reportMarkdownPieces(d, [])], [...reportHtmlPieces(d, [])]]) {
      const total = pieces.join('').length;
      expect(total).toBeGreaterThan(4 * PIECE_CHARS);
      expect(pieces.length).toBeGreaterThanOrEqual(Math.floor(total / (2 * PIECE_CHARS)));
      // a piece is PIECE_CHARS and at most one part (a line, an item's JSON) more
      for (const p of pieces) expect(p.length).toBeLessThan(PIECE_CHARS + 4096);
    }
  });

  it('joins parts with the separator whatever the piece size', () => {
    const parts = ['a', '', 'bcd', 'e'];
    for (const size of [1, 2, 3, 100]) expect([...joinedPieces(parts, '\n', size)].join('')).toBe(parts.join('\n'));
    expect([...joinedPieces([], '\n')]).toEqual([]);
  });

  it('gives JSON.stringify in pieces, undefined members left out', () => {
    const v = { a: [1, undefined, { b: 'x<' }], c: undefined, d: { e: [[1]] }, f: null, g: new Date(0) };
    for (const levels of [0, 1, 2, 3, 9]) expect([...jsonTextPieces(v, levels)].join('')).toBe(JSON.stringify(v));
  });
});

describe('a report carries each text capped (quoteCap.ts)', () => {
  it('leaves a text no longer than its cap as it is, and the record itself', () => {
    expect(capText('abc', 3)).toEqual({ text: 'abc', leftOut: 0 });
    expect(capCompaction(SAMPLE_COMPACTION)).toBe(SAMPLE_COMPACTION);
  });

  it('cuts a text past its cap, counts what it cut, and splits no surrogate pair', () => {
    expect(capText('abcdef', 4)).toEqual({ text: 'abcd', leftOut: 2 });
    expect(capText('abc😀d', 4)).toEqual({ text: 'abc', leftOut: 3 });
    expect(leftOutWords(1)).toBe('… (1 more character not shown)');
    expect(leftOutWords(12345)).toBe('… (12,345 more characters not shown)');
  });

  it('cuts a 2 MB summary and a 1 MB item of a compaction, says how much, and keeps the cells', () => {
    const summary = 'The parser was fixed and tested again. '.repeat(52_000);
    const prompt = 'please keep the retry loop; '.repeat(38_000);
    const r = {
      ...SAMPLE_COMPACTION,
      summary_text: summary,
      items: [{ ...SAMPLE_COMPACTION.items[1]!, text: prompt }],
      carried: [{ ...SAMPLE_COMPACTION.carried[0]!, text: prompt }],
    };
    const capped = capCompaction(r);
    expect(capped.summary_text).toHaveLength(QUOTE_MAX);
    expect(capped.summary_left_out).toBe(summary.length - QUOTE_MAX);
    expect(capped.items[0]!.text).toHaveLength(TEXT_MAX);
    expect(capped.items[0]!.text_left_out).toBe(prompt.length - TEXT_MAX);
    expect(capped.carried[0]!.text_left_out).toBe(prompt.length - TEXT_MAX);
    const whole: ReportData = { ...SAMPLES.compaction!, compaction: r };
    const cut: ReportData = { ...SAMPLES.compaction!, compaction: capped };
    const md = reportMarkdown(cut, []);
    const left = (summary.length - QUOTE_MAX).toLocaleString('en-US');
    expect(md).toContain(
      `_… (${left} more characters not shown): a report quotes at most 65,536 characters of a summary; the whole text is in the transcript._`,
    );
    // the same Markdown whether the data was cut when it was made or is cut here
    expect(md).toBe(reportMarkdown(whole, []));
    expect(md.length).toBeLessThan(QUOTE_MAX + 10_000);
    const html = reportHtml(cut, []);
    expect(html.length).toBeLessThan(QUOTE_MAX + TEXT_MAX * 2 + 20_000);
    expect(html).toContain(`"summary_left_out":${summary.length - QUOTE_MAX}`);
  });
});
