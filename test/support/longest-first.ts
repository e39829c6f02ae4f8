import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Runs the test files that take longest first, by the seconds each took in a fresh-clone CI run
 * (`file-durations.json`, refreshed by hand from `.cache/vitest-results.json`). A fresh clone has no vitest cache, so
 * without this the order is by file size, and a long end-to-end file started last holds the suite open alone
 * while the other worker idles. Files not listed keep vitest's own order after the listed ones.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations: Record<string, number> = JSON.parse(
      readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8'),
    );
    const sorted = await super.sort(files);
    const seconds = (file: TestSpecification) => durations[relative(process.cwd(), file.moduleId)] ?? 0;
    return [...sorted].sort((a, b) => seconds(b) - seconds(a));
  }
}
