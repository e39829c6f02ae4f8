import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/longest-first.js';

// The SDK warns at import on Node 20 (Lambda runs Node 22); the warning is noise in every test run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // The IAM proof's check after each file whose runtimes it observed (test/support/iam/checked-calls.ts).
    setupFiles: ['test/support/iam/proof-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel against one shared DynamoDB Local; each file uses its own table.
    maxWorkers: 2,
    // The longest files first, so no long file starts last and runs alone (test/support/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.cache/vitest-results.json' },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
