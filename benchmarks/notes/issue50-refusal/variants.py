"""Writes the variants of full.sql measured in docs/performance.md next to it."""
import pathlib

here = pathlib.Path(__file__).parent
full = (here / "full.sql").read_text()
head = full[: full.index("SELECT true")]
update = head[len("WITH upd AS (") : head.rindex(")")]
(here / "updonly.sql").write_text(update.strip() + ";\n")
(here / "join.sql").write_text(
    head
    + "SELECT upd.fence IS NOT NULL, coalesce(upd.fence, l.fence),"
    + " coalesce(upd.acquired_at, l.acquired_at), l.run_id, l.holder, l.expires_at,"
    + " l.released_at, statement_timestamp()\n"
    + "  FROM leasehold_lease AS l LEFT JOIN upd ON true"
    + " WHERE l.account_id = 'pgb' AND l.session_id = 'held';\n"
)
(here / "nof.sql").write_text(
    full.replace("WITH f AS (SELECT nextval('leasehold_fence_seq') AS v)\n  ", "").replace(
        "(SELECT v FROM f)", "nextval('leasehold_fence_seq')"
    )
)
