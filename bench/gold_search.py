"""A small hand-made gold set for the ranked engine: 30 engineering notes, 24 questions.

Each question names the one note a colleague would want first.  Questions are
phrased the way people ask (other words than the title, identifiers, versions),
so the set measures what the ranked engine is for: natural-language lookup.
Used by ``bench/bench_search.py`` (recall@5 and MRR).
"""

from __future__ import annotations

NOTES: dict[str, tuple[str, str, list[str], str]] = {
    # id: (type, title, description, tags) and body
    "decisions/postgres-over-mysql": ("Decision", "Postgres over MySQL", "Why the ledger runs on Postgres 15.", ["database"]),
    "decisions/kafka-retention": ("Decision", "Kafka retention of seven days", "Topic retention set to 7 days for replay.", ["kafka", "ops"]),
    "decisions/feature-flags": ("Decision", "Feature flags through LaunchDarkly", "All risky rollouts go behind a flag.", ["release"]),
    "decisions/monorepo": ("Decision", "One repository for services", "Services live in a monorepo with Bazel.", ["build"]),
    "runbooks/redis-failover": ("Runbook", "Redis failover", "Promote the replica when the primary dies.", ["redis", "oncall"]),
    "runbooks/rotate-api-keys": ("Runbook", "Rotating API keys", "Quarterly rotation of partner credentials.", ["security"]),
    "runbooks/restore-backup": ("Runbook", "Restoring a database backup", "Point-in-time recovery from WAL archives.", ["database", "oncall"]),
    "runbooks/deploy-hotfix": ("Runbook", "Shipping a hotfix", "Cherry-pick to the release branch and deploy.", ["release"]),
    "glossary/customer-id": ("Term", "Customer identifier", "The `customer_id` column and where it comes from.", ["data"]),
    "glossary/churn": ("Term", "Churn", "A customer who cancels within the billing period.", ["metrics"]),
    "glossary/arr": ("Term", "ARR", "Annual recurring revenue, as finance computes it.", ["metrics"]),
    "glossary/tenant": ("Term", "Tenant", "An isolated customer workspace with its own schema.", ["data"]),
    "findings/slow-invoice-job": ("Finding", "Invoice job slowness", "The nightly invoice job takes 4 hours.", ["billing", "perf"]),
    "findings/cache-stampede": ("Finding", "Cache stampede on deploy", "Cold caches after deploy overload Postgres.", ["redis", "perf"]),
    "findings/flaky-e2e": ("Finding", "Flaky end-to-end tests", "Timeouts in the checkout suite on CI.", ["ci", "testing"]),
    "findings/memory-leak-7-2": ("Finding", "Memory leak in 7.2.0", "Worker RSS grows after the 7.2.0 upgrade.", ["perf"]),
    "projects/search-v2": ("Project", "Search v2", "Replace Elasticsearch with Postgres full-text.", ["search"]),
    "projects/billing-migration": ("Project", "Billing migration to Stripe", "Moving subscriptions off the legacy biller.", ["billing"]),
    "projects/gdpr-erasure": ("Project", "GDPR erasure", "Delete a person's data on request within 30 days.", ["security", "privacy"]),
    "projects/mobile-offline": ("Project", "Offline mode for mobile", "Sync queue and conflict resolution.", ["mobile"]),
    "reference/api-rate-limits": ("Reference", "API rate limits", "Per-tenant quotas and the 429 policy.", ["api"]),
    "reference/oncall-rotation": ("Reference", "On-call rotation", "Who is paged, when, and escalation.", ["oncall"]),
    "reference/logging-fields": ("Reference", "Structured logging fields", "Required keys: trace_id, tenant, level.", ["observability"]),
    "reference/error-budget": ("Reference", "Error budget policy", "99.9% availability SLO and the freeze rule.", ["observability", "release"]),
    "learnings/timezone-bug": ("Learning", "Timezones in reports", "Store UTC, render in the customer's zone.", ["data"]),
    "learnings/n-plus-one": ("Learning", "N+1 queries in the admin", "Eager-load associations on list pages.", ["perf", "database"]),
    "learnings/retry-storms": ("Learning", "Retry storms", "Exponential backoff with jitter on clients.", ["api", "perf"]),
    "learnings/schema-migrations": ("Learning", "Zero-downtime schema migrations", "Expand, backfill, contract.", ["database"]),
    "overview/architecture": ("Overview", "Architecture overview", "Services, queues and stores at a glance.", ["overview"]),
    "overview/data-pipeline": ("Overview", "Data pipeline", "From Kafka to the warehouse via dbt.", ["kafka", "data"]),
}

BODIES: dict[str, str] = {
    "decisions/postgres-over-mysql": "We chose Postgres for transactional integrity, JSONB and partial indexes.",
    "decisions/kafka-retention": "Consumers may replay a week of events; storage cost is acceptable.",
    "decisions/feature-flags": "Flags are removed within two sprints after a full rollout.",
    "decisions/monorepo": "Shared libraries change atomically with their callers.",
    "runbooks/redis-failover": "Run `redis-cli failover` on the replica, then update the sentinel config.",
    "runbooks/rotate-api-keys": "Generate new keys, deploy them to the vault, revoke the old ones after 24 h.",
    "runbooks/restore-backup": "Use `pg_restore` with the base backup and replay WAL up to the incident time.",
    "runbooks/deploy-hotfix": "Tag the release, run the pipeline, watch the error rate for 30 minutes.",
    "glossary/customer-id": "`customer_id` is a UUID minted at signup; never reuse it across tenants.",
    "glossary/churn": "Monthly churn = cancelled customers / customers at the start of the month.",
    "glossary/arr": "ARR counts annualised subscription revenue, excluding one-off fees.",
    "glossary/tenant": "Each tenant has a Postgres schema; the tenant id is in every log line.",
    "findings/slow-invoice-job": "The invoice job scans every subscription; batching would cut it to minutes.",
    "findings/cache-stampede": "All keys expire together after a deploy; add jittered TTLs and request coalescing.",
    "findings/flaky-e2e": "The payment iframe loads slowly; waits were fixed sleeps.",
    "findings/memory-leak-7-2": "Version 7.2.0 keeps HTTP sessions alive; pin 7.1.4 until the fix.",
    "projects/search-v2": "tsvector columns with GIN indexes; ranking with ts_rank_cd.",
    "projects/billing-migration": "Dual-write invoices during the cutover; reconcile nightly.",
    "projects/gdpr-erasure": "A deletion request removes rows in every service and purges backups after 35 days.",
    "projects/mobile-offline": "Edits queue locally and merge with last-writer-wins per field.",
    "reference/api-rate-limits": "Default 100 requests per second per tenant; bursts up to 200.",
    "reference/oncall-rotation": "Weekly rotation, handover on Mondays; the secondary is paged after 15 minutes.",
    "reference/logging-fields": "Every log line carries trace_id and tenant so incidents can be traced.",
    "reference/error-budget": "When the budget is spent, feature releases stop until reliability work lands.",
    "learnings/timezone-bug": "A report at midnight UTC showed the wrong day for Sydney customers.",
    "learnings/n-plus-one": "The admin customer list issued one query per row; includes() fixed it.",
    "learnings/retry-storms": "Clients retried immediately and amplified an outage tenfold.",
    "learnings/schema-migrations": "Add the column nullable, backfill in batches, then add the constraint.",
    "overview/architecture": "Web, API and workers talk through Kafka; Postgres and Redis are the stores.",
    "overview/data-pipeline": "Events land in Kafka, are loaded to the warehouse hourly and modelled with dbt.",
}

QUERIES: list[tuple[str, str]] = [
    ("what do we do when the redis primary goes down", "runbooks/redis-failover"),
    ("how long are kafka events kept", "decisions/kafka-retention"),
    ("why postgres and not mysql", "decisions/postgres-over-mysql"),
    ("where does customer_id come from", "glossary/customer-id"),
    ("memory grows after upgrading to 7.2.0", "findings/memory-leak-7-2"),
    ("how to restore the database from backup", "runbooks/restore-backup"),
    ("rotating partner api keys", "runbooks/rotate-api-keys"),
    ("nightly invoice job is slow", "findings/slow-invoice-job"),
    ("caches expire together after deploy", "findings/cache-stampede"),
    ("tests time out on CI checkout", "findings/flaky-e2e"),
    ("delete personal data on request", "projects/gdpr-erasure"),
    ("moving subscriptions to stripe", "projects/billing-migration"),
    ("how many requests per second can a tenant make", "reference/api-rate-limits"),
    ("who gets paged and escalation", "reference/oncall-rotation"),
    ("which keys must every log line have trace_id", "reference/logging-fields"),
    ("what happens when the error budget is spent", "reference/error-budget"),
    ("reports show the wrong day timezone", "learnings/timezone-bug"),
    ("admin list page issues a query per row", "learnings/n-plus-one"),
    ("clients retry and amplify an outage backoff", "learnings/retry-storms"),
    ("add a column without downtime", "learnings/schema-migrations"),
    ("how is churn computed", "glossary/churn"),
    ("replace elasticsearch full-text search", "projects/search-v2"),
    ("ship an urgent fix to production hotfix", "runbooks/deploy-hotfix"),
    ("how do events get to the warehouse dbt", "overview/data-pipeline"),
]


def write_bundle(root) -> None:
    """Write the gold notes as an OKF bundle at ``root`` (a pathlib.Path)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.md").write_text('---\nokf_version: "0.2"\n---\n# Gold\n', encoding="utf-8")
    for cid, (ctype, title, description, tags) in NOTES.items():
        path = root / f"{cid}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        tag_text = ", ".join(tags)
        path.write_text(
            f"---\ntype: {ctype}\ntitle: {title}\ndescription: \"{description}\"\ntags: [{tag_text}]\n---\n\n"
            f"# {title}\n\n{BODIES[cid]}\n",
            encoding="utf-8",
        )
