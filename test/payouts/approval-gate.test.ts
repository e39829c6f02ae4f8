import { describe, expect, it } from 'vitest';
import {
  type GateLimits,
  judgeApproval,
  MoneyEntryPoint,
  type MoneyInstruction,
  type PendingApproval,
} from '../../lib/controls/gate.js';
import type { Principal } from '../../lib/controls/index.js';
import { ApprovalForbiddenError } from '../../lib/controls/index.js';
import { defaultEngineConfig } from '../../lib/payouts/config.js';
import { CapturingLogger } from '../../lib/shared/logger.js';

const bob: Principal = { id: 'bob', kind: 'user' };
const carol: Principal = { id: 'carol', kind: 'user' };
const LIMITS: GateLimits = { maxInstructionKobo: 50_000_000, approvalThresholdKobo: 1_000_000 };

const instruction = (kobo: number | undefined, releasedBy: Principal = bob): MoneyInstruction => ({
  entryPoint: MoneyEntryPoint.ApiPayout,
  debits: { kind: 'main_wallet' },
  amount: { kobo, source: { from: 'request' } },
  releasedBy,
});
const approval = (approver: Principal = bob, firstApproval?: PendingApproval['firstApproval']) => {
  const logger = new CapturingLogger();
  return {
    logger,
    approval: { what: 'payout p1', stays: 'pending_approval', approver, firstApproval, logger },
  };
};

describe('the gate at an approval: approver limits and two approvers', () => {
  it('releases with one approval and no approver limit when neither is configured (the default)', () => {
    for (const kobo of [1_000_000, 40_000_000, undefined]) {
      const { releases } = judgeApproval(defaultEngineConfig, instruction(kobo), approval().approval);
      expect(releases).toBe(true);
    }
  });

  it("refuses an amount above the approver's limit, by identity under any spelling, and logs the refusal", () => {
    const limits: GateLimits = { ...LIMITS, approverLimits: { byApprover: { ' BOB ': 2_000_000 } } };
    const { logger, approval: bobs } = approval();
    expect(() => judgeApproval(limits, instruction(2_000_001), bobs)).toThrow(ApprovalForbiddenError);
    expect(() => judgeApproval(limits, instruction(2_000_001), bobs)).toThrow(
      'payout p1 cannot be approved by bob: 2000001 is above their approval limit of 2000000 kobo; it stays pending_approval and nothing changed',
    );
    expect(logger.entries.some((entry) => entry.message === 'approval refused by the gate')).toBe(true);
    expect(judgeApproval(limits, instruction(2_000_000), bobs).releases).toBe(true);
    // Carol is named nowhere and there is no default: no limit.
    expect(judgeApproval(limits, instruction(40_000_000, carol), approval(carol).approval).releases).toBe(
      true,
    );
  });

  it('applies the default limit to approvers not named, and a named limit above it to those named', () => {
    const limits: GateLimits = {
      ...LIMITS,
      approverLimits: { defaultKobo: 1_500_000, byApprover: { carol: 9_000_000 } },
    };
    expect(() => judgeApproval(limits, instruction(2_000_000), approval().approval)).toThrow(
      'approval limit of 1500000 kobo',
    );
    expect(judgeApproval(limits, instruction(2_000_000, carol), approval(carol).approval).releases).toBe(
      true,
    );
  });

  it('refuses an amount not known here to an approver who has a limit (it cannot be shown to hold)', () => {
    const limits: GateLimits = { ...LIMITS, approverLimits: { defaultKobo: 9_000_000 } };
    expect(() => judgeApproval(limits, instruction(undefined), approval().approval)).toThrow(
      'an amount not known here is above their approval limit',
    );
  });

  it('asks a second approval at or above the second threshold and of an amount not known here, not below it', () => {
    const limits: GateLimits = { ...LIMITS, secondApprovalThresholdKobo: 5_000_000 };
    expect(judgeApproval(limits, instruction(4_999_999), approval().approval).releases).toBe(true);
    const first = judgeApproval(limits, instruction(5_000_000), approval().approval);
    expect(first.releases).toBe(false);
    expect(first.reason).toBe(
      'first approval by bob; a second approver must approve (the second-approval threshold is 5000000 kobo)',
    );
    expect(judgeApproval(limits, instruction(undefined), approval().approval).releases).toBe(false);
  });

  it('releases at the second approval by another person and refuses the first approver again', () => {
    const limits: GateLimits = { ...LIMITS, secondApprovalThresholdKobo: 5_000_000 };
    const firstApproval = { actor: bob, at: '2026-12-03T10:00:00.000Z' };
    const second = judgeApproval(
      limits,
      instruction(6_000_000, carol),
      approval(carol, firstApproval).approval,
    );
    expect(second.releases).toBe(true);
    expect(second.reason).toBe('approved by carol, the second approver after bob');
    expect(() =>
      judgeApproval(
        limits,
        instruction(6_000_000),
        approval({ id: 'Bob', kind: 'user' }, firstApproval).approval,
      ),
    ).toThrow('was approved first by bob, who therefore cannot give its second approval');
  });

  it('lets a second approval release what was approved first even once the threshold was turned off', () => {
    const firstApproval = { actor: bob, at: '2026-12-03T10:00:00.000Z' };
    expect(
      judgeApproval(LIMITS, instruction(6_000_000, carol), approval(carol, firstApproval).approval).releases,
    ).toBe(true);
  });
});
