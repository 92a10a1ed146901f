// docs/adapters.md "injected text": what Claude Code adds to a typed prompt, left out of its label, title and audit.
import { describe, expect, it } from 'vitest';
import { injectedLabel, typedText } from './injectedText.ts';

describe('typedText', () => {
  it('leaves out each IDE note and system reminder by its own closing tag, keeping what was typed', () => {
    expect(typedText('<ide_opened_file>The user opened the file /p/a.ts in the IDE.</ide_opened_file>\nwhy is the header wrapping')).toBe(
      'why is the header wrapping',
    );
    expect(typedText('fix <ide_selection>line 1\n</ide_opened_file> line 2</ide_selection> this')).toBe('fix  this');
    expect(typedText('<system-reminder>\nhook context\n</system-reminder>\nrun the tests')).toBe('run the tests');
    expect(typedText('a <system-reminder>x</system-reminder> b <ide_selection>y</ide_selection> c')).toBe('a  b  c');
  });

  it('keeps a text without them, and an opening tag nothing closes, as it is', () => {
    expect(typedText('  plain prompt  ')).toBe('  plain prompt  ');
    expect(typedText('what does <ide_selection> mean in the logs?')).toBe('what does <ide_selection> mean in the logs?');
    expect(typedText('<system-reminder>a</system-reminder><system-reminder>unclosed')).toBe('<system-reminder>unclosed');
  });

  it('reads a hostile text of many unclosed tags in one pass', () => {
    const hostile = '<ide_selection><system-reminder>'.repeat(100_000) + 'typed';
    expect(typedText(hostile)).toBe(hostile);
    const closedLater = '<system-reminder>'.repeat(100_000) + '</system-reminder>typed';
    expect(typedText(closedLater)).toBe('typed');
  });
});

describe('injectedLabel', () => {
  it('names a text that is only injected blocks, and nothing else', () => {
    expect(
      injectedLabel('<ide_opened_file>The user opened the file C:\\repo\\src\\auth.ts in the IDE. This may or may not be related.</ide_opened_file>'),
    ).toBe('IDE: opened auth.ts');
    expect(injectedLabel('<ide_selection>The user selected the lines 3 to 9 from /r/lru.rs:\nfn x() {}</ide_selection>')).toBe(
      'IDE: selected lines 3–9 of lru.rs',
    );
    expect(injectedLabel('<system-reminder>\nThe todo list is empty.\n</system-reminder>')).toMatch(/^system reminder: The todo list is empty/);
    expect(injectedLabel('<system-reminder>x</system-reminder> and a prompt')).toBeNull();
    expect(injectedLabel('a prompt')).toBeNull();
  });
});
