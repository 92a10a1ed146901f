// A generated SWE-agent trajectory (`.traj`), pretty-printed as SWE-agent writes it
// (`json.dumps(data, indent=2)`, sweagent/agent/agents.py `save_trajectory`): the document's
// members in SWE-agent's order (`trajectory`, `history`, `info`), each step with its action,
// observation, response, thought, execution time and state. With `queries` each step also
// carries the messages the model saw (`query`, SWE-agent 1.1; the file grows as n²); without,
// the steps say nothing of what was seen and the main agent's `history` does (most published
// files; docs/adapters.md "SWE-agent"). Written to a file piece by piece, so a file of any
// size costs the generator one step's text.
import fs from 'node:fs';
import path from 'node:path';
import { prose as wordProse } from './prose.ts';

const WORDS = 'open edit scroll search file line error test passed failed import module function class return value config path'.split(' ');

const prose = (seed: number, chars: number): string => wordProse(WORDS, seed, chars);

export interface TrajShape {
  /** model calls (steps) */
  steps: number;
  /** characters of each observation */
  observationChars: number;
  /** every step carries the messages it saw (`query`) */
  queries?: boolean;
}

/** `value` as Python's json.dumps(indent=2) writes it at `level`, starting after its key. */
function pretty(value: unknown, level: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, '\n' + '  '.repeat(level));
}

/** The document's text piece by piece (joined, one pretty-printed JSON object). */
export function* trajPieces(shape: TrajShape): Generator<string> {
  const system = {
    role: 'system',
    content: 'You are a helpful assistant that can interact with a computer to solve tasks.',
    agent: 'main',
    message_type: 'system_prompt',
  };
  const task = { role: 'user', content: `<uploaded_files>/testbed</uploaded_files> ${prose(7, 400)}`, agent: 'main', message_type: 'observation' };
  const history: Record<string, unknown>[] = [system, task];
  const response = (i: number): string => `Step ${i}: ${prose(i * 3 + 1, 200)}\n\n\`\`\`\nopen src/file${i % 40}.py\n\`\`\``;
  const observation = (i: number): string => `[File: src/file${i % 40}.py]\n${prose(i * 5 + 2, shape.observationChars)}`;
  yield '{\n  "environment": "swe_main",\n  "trajectory": [';
  for (let i = 0; i < shape.steps; i++) {
    const step: Record<string, unknown> = {
      action: `open src/file${i % 40}.py`,
      observation: observation(i),
      response: response(i),
      thought: `Step ${i}: ${prose(i * 3 + 1, 200)}`,
      execution_time: 0.25,
      state: { open_file: `/testbed/src/file${i % 40}.py`, working_dir: '/testbed' },
    };
    if (shape.queries === true) step.query = history;
    step.extra_info = {};
    yield `${i === 0 ? '' : ','}\n    ${pretty(step, 2)}`;
    history.push({ role: 'assistant', content: response(i), thought: step.thought, action: step.action, agent: 'main', message_type: 'action' });
    history.push({ role: 'user', content: observation(i), agent: 'main', message_type: 'observation' });
  }
  yield '\n  ],\n  "history": [';
  for (let i = 0; i < history.length; i++) yield `${i === 0 ? '' : ','}\n    ${pretty(history[i], 2)}`;
  yield `\n  ],\n  "info": ${pretty({ exit_status: 'submitted', submission: 'diff --git a/src/file0.py b/src/file0.py', model_stats: { api_calls: shape.steps } }, 1)}\n}\n`;
}

/** The trajectory written to `file` (once: kept while it exists); its path. */
export function writeTraj(file: string, shape: TrajShape): string {
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  let held: string[] = [];
  let size = 0;
  for (const piece of trajPieces(shape)) {
    held.push(piece);
    size += piece.length;
    if (size > 4 << 20) {
      fs.writeSync(fd, held.join(''));
      held = [];
      size = 0;
    }
  }
  fs.writeSync(fd, held.join(''));
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  return file;
}
