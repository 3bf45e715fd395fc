import { describe, expect, it } from 'vitest';
import { measureToolSelection } from '../../../bench/tool-selection.js';

describe('the tool-selection benchmark (bench/tool-selection.ts)', () => {
  it('sends at least 30 % fewer prompt tokens with selection, and reaches every tool the script needs', async () => {
    const { all, selection, optionalTools, turns } = await measureToolSelection();

    expect(turns).toBe(20);
    expect(optionalTools).toBeGreaterThanOrEqual(10);
    expect(all.reachedCalls).toBe(all.neededCalls);
    expect(selection.reachedCalls).toBe(selection.neededCalls);
    expect(selection.toolFinderCalls).toBeGreaterThan(0); // the meta-tool path is part of the measure
    expect(selection.totalPromptTokens).toBeLessThanOrEqual(0.7 * all.totalPromptTokens);
  });
});
