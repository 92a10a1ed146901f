import { describe, expect, it } from 'vitest';
import { followWindow, initialUiState, nearestTurn, seekSeverity, stepTurn, zoomAround } from './ui.ts';

const turns = Float64Array.of(1, 2, 5, 9, 10); // gaps in turn numbers are allowed (contract §2)
const severity = Uint8Array.of(0, 3, 0, 2, 3);

describe('turn navigation', () => {
  it('steps through the turns that exist, and stops at the ends', () => {
    expect(stepTurn(turns, 2, 1)).toBe(5);
    expect(stepTurn(turns, 5, -1)).toBe(2);
    expect(stepTurn(turns, 10, 1)).toBe(10);
    expect(stepTurn(turns, 1, -1)).toBe(1);
    expect(stepTurn(turns, 7, 1)).toBe(9); // from between two turns
    expect(stepTurn(turns, 7, -1)).toBe(5);
    expect(stepTurn(turns, null, 1)).toBe(1);
    expect(stepTurn(new Float64Array(0), 3, 1)).toBeNull();
  });

  it('seeks the next and previous fault turn', () => {
    expect(seekSeverity(turns, severity, 2, 1)).toBe(10);
    expect(seekSeverity(turns, severity, 10, -1)).toBe(2);
    expect(seekSeverity(turns, severity, 2, -1)).toBeNull();
    expect(seekSeverity(turns, severity, 1, 1, 2)).toBe(2);
  });

  it('snaps a click on the axis to the nearest turn', () => {
    expect(nearestTurn(turns, 7.4)).toBe(9);
    expect(nearestTurn(turns, 6.9)).toBe(5);
    expect(nearestTurn(turns, -3)).toBe(1);
    expect(nearestTurn(turns, 99)).toBe(10);
  });
});

describe('zoom', () => {
  it('zooms around the cursor inside the session, and back to the whole session', () => {
    expect(zoomAround(1, 1001, null, 500, 0.5)).toEqual({ from: 250, to: 750 });
    expect(zoomAround(1, 1001, null, 990, 0.5)).toEqual({ from: 501, to: 1001 });
    expect(zoomAround(1, 1001, { from: 250, to: 750 }, 500, 4)).toBeNull();
  });

  it('slides a zoom window with the newest turn while following', () => {
    expect(followWindow({ from: 100, to: 200 }, 250)).toEqual({ from: 150, to: 250 });
    expect(followWindow(null, 250)).toBeNull();
    expect(initialUiState.follow).toBe(true);
  });
});
