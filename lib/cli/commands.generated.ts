// Written by `npm run openapi` from the routes (lib/cli/command-table.ts, `commandsOf`): do not edit.
import type { CommandSpec } from './command-table.js';

export const GENERATED_COMMANDS: readonly CommandSpec[] = [
  {
    "words": [
      "payouts",
      "create"
    ],
    "method": "POST",
    "path": "/payouts",
    "summary": "create a payout from a JSON body",
    "body": "required",
    "idempotent": true
  },
  {
    "words": [
      "payouts",
      "list"
    ],
    "method": "GET",
    "path": "/payouts",
    "summary": "list payouts, newest first",
    "list": true,
    "query": [
      "status",
      "type",
      "from",
      "to",
      "limit"
    ]
  },
  {
    "words": [
      "payouts",
      "get"
    ],
    "method": "GET",
    "path": "/payouts/{id}",
    "summary": "a payout with its audit"
  },
  {
    "words": [
      "payouts",
      "audit"
    ],
    "method": "GET",
    "path": "/payouts/{id}/audit",
    "summary": "a payout's whole audit trail, oldest first (--all for every page)",
    "list": true,
    "query": [
      "limit"
    ]
  },
  {
    "words": [
      "payouts",
      "cancel"
    ],
    "method": "POST",
    "path": "/payouts/{id}/cancel",
    "summary": "cancel a payout not yet submitted",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "payouts",
      "approve"
    ],
    "method": "POST",
    "path": "/payouts/{id}/approve",
    "summary": "approve a payout as the second person",
    "confirmFrom": "/payouts/{id}"
  },
  {
    "words": [
      "payouts",
      "reject"
    ],
    "method": "POST",
    "path": "/payouts/{id}/reject",
    "summary": "reject a payout waiting for approval, as the second person, with --reason; it is cancelled for good",
    "bodyFlags": [
      "reason"
    ],
    "confirmFrom": "/payouts/{id}"
  },
  {
    "words": [
      "payouts",
      "resolve"
    ],
    "method": "POST",
    "path": "/payouts/{id}/resolve",
    "summary": "propose or confirm (a second person) the decision on a payout in needs_review or unknown",
    "body": "required",
    "confirmFrom": "/payouts/{id}"
  },
  {
    "words": [
      "controls",
      "pause"
    ],
    "method": "POST",
    "path": "/controls/pause",
    "summary": "pause every submission",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "controls",
      "resume"
    ],
    "method": "POST",
    "path": "/controls/resume",
    "summary": "resume submissions",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "controls",
      "show"
    ],
    "method": "GET",
    "path": "/controls",
    "summary": "whether payouts are paused"
  },
  {
    "words": [
      "recurring",
      "create"
    ],
    "method": "POST",
    "path": "/recurring-payouts",
    "summary": "create a recurring payout from a JSON body",
    "body": "required",
    "idempotent": true
  },
  {
    "words": [
      "recurring",
      "list"
    ],
    "method": "GET",
    "path": "/recurring-payouts",
    "summary": "list recurring payouts",
    "list": true,
    "query": [
      "status",
      "limit"
    ]
  },
  {
    "words": [
      "recurring",
      "get"
    ],
    "method": "GET",
    "path": "/recurring-payouts/{id}",
    "summary": "a rule, its next occurrences and history"
  },
  {
    "words": [
      "recurring",
      "history"
    ],
    "method": "GET",
    "path": "/recurring-payouts/{id}/history",
    "summary": "what became of every occurrence, newest first (--all for every page)",
    "list": true,
    "query": [
      "limit"
    ]
  },
  {
    "words": [
      "recurring",
      "approve"
    ],
    "method": "POST",
    "path": "/recurring-payouts/{id}/approve",
    "summary": "approve a rule at or above the approval threshold as the second person",
    "confirmFrom": "/recurring-payouts/{id}"
  },
  {
    "words": [
      "recurring",
      "reject"
    ],
    "method": "POST",
    "path": "/recurring-payouts/{id}/reject",
    "summary": "reject a rule waiting for approval, as the second person, with --reason; it is never paid",
    "bodyFlags": [
      "reason"
    ],
    "confirmFrom": "/recurring-payouts/{id}"
  },
  {
    "words": [
      "recurring",
      "pause"
    ],
    "method": "POST",
    "path": "/recurring-payouts/{id}/pause",
    "summary": "pause a rule",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "recurring",
      "resume"
    ],
    "method": "POST",
    "path": "/recurring-payouts/{id}/resume",
    "summary": "resume a rule"
  },
  {
    "words": [
      "recurring",
      "cancel"
    ],
    "method": "POST",
    "path": "/recurring-payouts/{id}/cancel",
    "summary": "end a rule for good",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "recurring",
      "skip"
    ],
    "method": "POST",
    "path": "/recurring-payouts/{id}/occurrences/{localDate}/skip",
    "summary": "skip one occurrence",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "provider",
      "scheduled"
    ],
    "method": "GET",
    "path": "/provider/scheduled-payouts",
    "summary": "the provider’s scheduled payouts (synced view)"
  },
  {
    "words": [
      "provider",
      "recurrent"
    ],
    "method": "GET",
    "path": "/provider/recurrent-payouts",
    "summary": "the provider’s recurrent payouts (synced view)"
  },
  {
    "words": [
      "future",
      "list"
    ],
    "method": "GET",
    "path": "/future-payouts",
    "summary": "money due in the next --days (1 to 366), ours and the provider’s; 500 an answer, --all for every page",
    "list": true,
    "query": [
      "days",
      "limit"
    ]
  },
  {
    "words": [
      "approvals",
      "list"
    ],
    "method": "GET",
    "path": "/approvals",
    "summary": "what waits for a second person that you may approve (not your own requests)",
    "query": [
      "limit"
    ]
  },
  {
    "words": [
      "refunds",
      "create"
    ],
    "method": "POST",
    "path": "/refunds",
    "summary": "refund a provider transaction from a JSON body",
    "body": "required",
    "idempotent": true
  },
  {
    "words": [
      "refunds",
      "list"
    ],
    "method": "GET",
    "path": "/refunds",
    "summary": "refunds newest first (--status pending_approval: waiting for a second person)",
    "list": true,
    "query": [
      "status",
      "limit"
    ]
  },
  {
    "words": [
      "refunds",
      "get"
    ],
    "method": "GET",
    "path": "/refunds/{id}",
    "summary": "a refund with its audit"
  },
  {
    "words": [
      "refunds",
      "approve"
    ],
    "method": "POST",
    "path": "/refunds/{id}/approve",
    "summary": "approve a refund as the second person; it is then sent",
    "confirmFrom": "/refunds/{id}"
  },
  {
    "words": [
      "refunds",
      "reject"
    ],
    "method": "POST",
    "path": "/refunds/{id}/reject",
    "summary": "reject a refund waiting for approval, as the second person, with --reason; it is never sent",
    "bodyFlags": [
      "reason"
    ],
    "confirmFrom": "/refunds/{id}"
  },
  {
    "words": [
      "refunds",
      "cancel"
    ],
    "method": "POST",
    "path": "/refunds/{id}/cancel",
    "summary": "withdraw a refund never sent",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "refunds",
      "resolve"
    ],
    "method": "POST",
    "path": "/refunds/{id}/resolve",
    "summary": "settle an unknown refund (proposal; a second person applies it)",
    "body": "required",
    "confirmFrom": "/refunds/{id}"
  },
  {
    "words": [
      "provider",
      "settlements"
    ],
    "method": "GET",
    "path": "/provider/settlements",
    "summary": "settlements as the provider lists them"
  },
  {
    "words": [
      "provider",
      "transactions"
    ],
    "method": "GET",
    "path": "/provider/wallet-transactions",
    "summary": "wallet transactions as the provider lists them"
  },
  {
    "words": [
      "provider",
      "stores"
    ],
    "method": "GET",
    "path": "/provider/stores",
    "summary": "stores as the provider lists them"
  },
  {
    "words": [
      "health",
      "check"
    ],
    "method": "GET",
    "path": "/health",
    "summary": "liveness; --deep reads the table and calls the provider once"
  },
  {
    "words": [
      "settlements",
      "pay"
    ],
    "method": "POST",
    "path": "/instant-settlements",
    "summary": "pay one settlement out now (body: { settlementId })",
    "body": "required"
  },
  {
    "words": [
      "settlements",
      "list"
    ],
    "method": "GET",
    "path": "/instant-settlements",
    "summary": "decisions on settlements and deferrals waiting for one, newest first",
    "list": true,
    "query": [
      "state",
      "limit"
    ]
  },
  {
    "words": [
      "settlements",
      "get"
    ],
    "method": "GET",
    "path": "/instant-settlements/{settlementId}",
    "summary": "the decision on a settlement"
  },
  {
    "words": [
      "bulk",
      "corrections"
    ],
    "method": "POST",
    "path": "/bulk-payout-items/corrections",
    "summary": "correct many items as a job: --csv FILE or a JSON { corrections } --body (202 with the job; with --key, a retry answers that job)",
    "body": "required",
    "csv": true
  },
  {
    "words": [
      "bulk",
      "correct"
    ],
    "method": "PATCH",
    "path": "/bulk-payout-items/{id}",
    "summary": "correct one bulk payout item from a JSON body",
    "body": "required"
  },
  {
    "words": [
      "bulk",
      "list"
    ],
    "method": "GET",
    "path": "/bulk-payout-items",
    "summary": "items corrected here, newest change first (--query isValid=false)",
    "list": true,
    "query": [
      "limit"
    ]
  },
  {
    "words": [
      "bulk",
      "get"
    ],
    "method": "GET",
    "path": "/bulk-payout-items/{id}",
    "summary": "an item, its audit and held corrections"
  },
  {
    "words": [
      "bulk",
      "approve"
    ],
    "method": "POST",
    "path": "/bulk-payout-items/{id}/corrections/{correctionId}/approve",
    "summary": "approve a held correction as the second person",
    "confirmFrom": "/bulk-payout-items/{id}"
  },
  {
    "words": [
      "bulk",
      "cancel"
    ],
    "method": "POST",
    "path": "/bulk-payout-items/{id}/corrections/{correctionId}/cancel",
    "summary": "withdraw a held correction before anyone approves it; it is never sent",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "correction-jobs",
      "list"
    ],
    "method": "GET",
    "path": "/bulk-correction-jobs",
    "summary": "correction jobs, newest first",
    "list": true,
    "query": [
      "limit"
    ]
  },
  {
    "words": [
      "correction-jobs",
      "get"
    ],
    "method": "GET",
    "path": "/bulk-correction-jobs/{id}",
    "summary": "a correction job: status, counts per state, progress"
  },
  {
    "words": [
      "correction-jobs",
      "items"
    ],
    "method": "GET",
    "path": "/bulk-correction-jobs/{id}/items",
    "summary": "the rows of a job with their results, in row order",
    "list": true,
    "query": [
      "limit"
    ]
  },
  {
    "words": [
      "correction-jobs",
      "results"
    ],
    "method": "GET",
    "path": "/bulk-correction-jobs/{id}/results.csv",
    "summary": "the results of every row as CSV"
  },
  {
    "words": [
      "correction-jobs",
      "requeue"
    ],
    "method": "POST",
    "path": "/bulk-correction-jobs/{id}/requeue",
    "summary": "hand the rows still queued to the workers again (nothing is sent twice)"
  },
  {
    "words": [
      "dead-letters",
      "list"
    ],
    "method": "GET",
    "path": "/dead-letters",
    "summary": "inbound events no handler could accept, newest first",
    "list": true,
    "query": [
      "status",
      "limit"
    ]
  },
  {
    "words": [
      "dead-letters",
      "get"
    ],
    "method": "GET",
    "path": "/dead-letters/{id}",
    "summary": "one dead letter and what was done with it"
  },
  {
    "words": [
      "dead-letters",
      "replay"
    ],
    "method": "POST",
    "path": "/dead-letters/{id}/replay",
    "summary": "deliver the event to its handler again"
  },
  {
    "words": [
      "dead-letters",
      "discard"
    ],
    "method": "POST",
    "path": "/dead-letters/{id}/discard",
    "summary": "put a dead letter aside for good (--reason)",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "payout-runs",
      "create"
    ],
    "aliases": [
      [
        "runs",
        "create"
      ]
    ],
    "method": "POST",
    "path": "/payout-runs",
    "summary": "create a run from a CSV file (--csv FILE, or --body run.csv) or JSON { rows }; 202 with the run (after a 409 for duplicates: --query acknowledgeDuplicates=true)",
    "body": "required",
    "csv": true,
    "idempotent": true
  },
  {
    "words": [
      "payout-runs",
      "list"
    ],
    "aliases": [
      [
        "runs",
        "list"
      ]
    ],
    "method": "GET",
    "path": "/payout-runs",
    "summary": "payout runs, newest first (--state pending_approval: those waiting for a second person)",
    "list": true,
    "query": [
      "state",
      "limit"
    ]
  },
  {
    "words": [
      "payout-runs",
      "get"
    ],
    "aliases": [
      [
        "runs",
        "show"
      ]
    ],
    "watch": true,
    "method": "GET",
    "path": "/payout-runs/{id}",
    "summary": "a run: count, total, largest rows, checksum, rows by status, progress (--watch: a progress bar until it ends)"
  },
  {
    "words": [
      "payout-runs",
      "approve"
    ],
    "aliases": [
      [
        "runs",
        "approve"
      ]
    ],
    "method": "POST",
    "path": "/payout-runs/{id}/approve",
    "summary": "approve a whole run as the second person",
    "confirmFrom": "/payout-runs/{id}"
  },
  {
    "words": [
      "payout-runs",
      "reject"
    ],
    "aliases": [
      [
        "runs",
        "reject"
      ]
    ],
    "method": "POST",
    "path": "/payout-runs/{id}/reject",
    "summary": "reject a run waiting for approval, as the second person, with --reason; none of it is sent",
    "bodyFlags": [
      "reason"
    ],
    "confirmFrom": "/payout-runs/{id}"
  },
  {
    "words": [
      "payout-runs",
      "cancel"
    ],
    "aliases": [
      [
        "runs",
        "cancel"
      ]
    ],
    "method": "POST",
    "path": "/payout-runs/{id}/cancel",
    "summary": "cancel the rows not yet sent; rows already sent stand",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "payout-runs",
      "payouts"
    ],
    "aliases": [
      [
        "runs",
        "payouts"
      ]
    ],
    "method": "GET",
    "path": "/payout-runs/{id}/payouts",
    "summary": "the run's rows with their payouts, in file order",
    "list": true,
    "query": [
      "limit"
    ]
  },
  {
    "words": [
      "payout-runs",
      "results"
    ],
    "aliases": [
      [
        "runs",
        "results"
      ]
    ],
    "method": "GET",
    "path": "/payout-runs/{id}/results.csv",
    "summary": "the result of every row as one CSV (fetched in parts of 1,000 rows)",
    "parts": true
  },
  {
    "words": [
      "statements",
      "list"
    ],
    "method": "GET",
    "path": "/statements",
    "summary": "daily statement reports, newest day first",
    "list": true,
    "query": [
      "limit"
    ]
  },
  {
    "words": [
      "statements",
      "show"
    ],
    "method": "GET",
    "path": "/statements/{date}",
    "summary": "a day's report: totals per kind, balances, who ran it"
  },
  {
    "words": [
      "statements",
      "lines"
    ],
    "method": "GET",
    "path": "/statements/{date}/lines",
    "summary": "the day's lines, of one kind (--kind provider_not_ours) or all",
    "list": true,
    "query": [
      "kind",
      "limit"
    ]
  },
  {
    "words": [
      "statements",
      "csv"
    ],
    "method": "GET",
    "path": "/statements/{date}/lines.csv",
    "summary": "every line of the day's report as one CSV (fetched in parts of 500 lines)",
    "parts": true
  },
  {
    "words": [
      "statements",
      "run"
    ],
    "method": "POST",
    "path": "/statements/{date}/run",
    "summary": "reconcile the day again now (idempotent; records who ran it)"
  },
  {
    "words": [
      "payouts",
      "export"
    ],
    "method": "GET",
    "path": "/payouts/export.csv",
    "summary": "every payout created --from DAY --to DAY (YYYY-MM-DD, Lagos; at most 31 days) as one CSV (fetched in parts of 500; --out FILE)",
    "query": [
      "from",
      "to"
    ],
    "parts": true
  },
  {
    "words": [
      "operators",
      "list"
    ],
    "method": "GET",
    "path": "/operators",
    "summary": "every operator of the user pool, their groups and whether they may sign in (admins)"
  },
  {
    "words": [
      "operators",
      "invite"
    ],
    "method": "POST",
    "path": "/operators",
    "summary": "invite --username NAME --email ADDRESS --groups viewer,requester --reason TEXT (a group that moves money waits for a second admin)",
    "bodyFlags": [
      "username",
      "email",
      "groups",
      "reason"
    ],
    "listFlags": [
      "groups"
    ]
  },
  {
    "words": [
      "operators",
      "get"
    ],
    "method": "GET",
    "path": "/operators/{username}",
    "summary": "an operator, what waits for a second admin, and their audit"
  },
  {
    "words": [
      "operators",
      "grant"
    ],
    "method": "POST",
    "path": "/operators/{username}/grant",
    "summary": "add --groups (viewer at once; requester, approver or admin proposed for a second admin) --reason TEXT",
    "bodyFlags": [
      "groups",
      "reason"
    ],
    "listFlags": [
      "groups"
    ]
  },
  {
    "words": [
      "operators",
      "revoke"
    ],
    "method": "POST",
    "path": "/operators/{username}/revoke",
    "summary": "remove --groups at once --reason TEXT",
    "bodyFlags": [
      "groups",
      "reason"
    ],
    "listFlags": [
      "groups"
    ]
  },
  {
    "words": [
      "operators",
      "disable"
    ],
    "method": "POST",
    "path": "/operators/{username}/disable",
    "summary": "disable at once: no sign-in, every token they hold refused (--reason)",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "operators",
      "enable"
    ],
    "method": "POST",
    "path": "/operators/{username}/enable",
    "summary": "enable again (--reason); one holding a group that moves money waits for a second admin",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "operators",
      "confirm"
    ],
    "method": "POST",
    "path": "/operators/{username}/proposals/{proposalId}/confirm",
    "summary": "confirm another admin's proposal (a grant or an enable) as the second admin"
  },
  {
    "words": [
      "operators",
      "cancel"
    ],
    "method": "POST",
    "path": "/operators/{username}/proposals/{proposalId}/cancel",
    "summary": "withdraw a proposal nobody confirmed yet (--reason)",
    "bodyFlags": [
      "reason"
    ]
  },
  {
    "words": [
      "api",
      "contract"
    ],
    "method": "GET",
    "path": "/openapi.json",
    "summary": "the OpenAPI document"
  }
];
