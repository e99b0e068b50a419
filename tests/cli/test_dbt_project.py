"""tacit-gen at home in a real dbt project, end to end with dbt itself (dbtRunner, in process).

The project is a copy of dbt-labs' jaffle_shop_duckdb (``TACIT_JAFFLE_SHOP``: a checkout or a
bare git directory; default: the mirror fetched for development; a case only when it is on the
machine), and, always, a small project of the same shape that this test writes: seeds, staging
views, and the ``orders`` / ``customers`` models with a ``schema.yml`` and a doc block. Both run
the flow for real: contracts for orders and customers, a render driven by ``tacit-gen.toml``
alone, the generated folders added to ``model-paths`` / ``macro-paths``, and ``dbt build``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from tacit_gen.cli import main

pytestmark = pytest.mark.engine

JAFFLE = Path(os.environ.get("TACIT_JAFFLE_SHOP", "/work/.mirror/dbt-labs+jaffle_shop_duckdb/repo"))

SETTINGS = """\
contracts = "contracts"
out = "generated"
targets = ["dbt"]

[dbt]
tests = "native"      # this project has no dbt_utils
not_null = "test"     # failure counts, and nothing downstream skipped
"""

ORDERS = """\
contract: orders
version: 1.0.0
owner: analytics@example
description: One row per order, with what was paid by each method.
key: [order_id]
fields:
  order_id:             {type: int32}
  customer_id:          {type: int32, nullable: false, references: customers.customer_id}
  order_date:           {type: date, nullable: false}
  status:               {type: "enum[placed, shipped, completed, return_pending, returned]", description: '{{ doc("orders_status") }}'}
  credit_card_amount:   {type: float64, unit: AUD, lint: {allow: [TG201], reason: "stg_payments divides cents by 100: DOUBLE until the model casts"}}
  coupon_amount:        {type: float64, unit: AUD, lint: {allow: [TG201], reason: "stg_payments divides cents by 100: DOUBLE until the model casts"}}
  bank_transfer_amount: {type: float64, unit: AUD, lint: {allow: [TG201], reason: "stg_payments divides cents by 100: DOUBLE until the model casts"}}
  gift_card_amount:     {type: float64, unit: AUD, lint: {allow: [TG201], reason: "stg_payments divides cents by 100: DOUBLE until the model casts"}}
  amount:               {type: float64, unit: AUD, description: Total amount (AUD) of the order, lint: {allow: [TG201], reason: "stg_payments divides cents by 100: DOUBLE until the model casts"}}
invariants:
  - amount >= 0
"""

CUSTOMERS = """\
contract: customers
version: 1.0.0
owner: analytics@example
description: One row per customer, with facts derived from their orders.
key: [customer_id]
fields:
  customer_id:             {type: int32}
  first_name:              {type: string}
  last_name:               {type: string}
  first_order:             {type: date}
  most_recent_order:       {type: date}
  number_of_orders:        {type: int64}
  customer_lifetime_value: {type: float64, unit: AUD, lint: {allow: [TG201], reason: "stg_payments divides cents by 100: DOUBLE until the model casts"}}
invariants:
  - first_order <= most_recent_order
  - number_of_orders >= 1
"""


# ------------------------------------------------------------------------- the dbt project
def _own_project(dest: Path) -> None:
    """A small dbt project with jaffle_shop's shape (its SQL, less data)."""
    files = {
        "dbt_project.yml": (
            "name: 'jaffle_shop'\nconfig-version: 2\nversion: '0.1'\nprofile: 'jaffle_shop'\n"
            'model-paths: ["models"]\nseed-paths: ["seeds"]\nmacro-paths: ["macros"]\n'
            "models:\n  jaffle_shop:\n    materialized: table\n    staging:\n      materialized: view\n"),
        "seeds/raw_customers.csv": "id,first_name,last_name\n1,Michael,P.\n2,Shawn,M.\n3,Kathleen,P.\n",
        "seeds/raw_orders.csv": ("id,user_id,order_date,status\n1,1,2018-01-01,returned\n"
                                 "2,3,2018-01-02,completed\n3,2,2018-01-04,placed\n4,1,2018-01-05,shipped\n"),
        "seeds/raw_payments.csv": ("id,order_id,payment_method,amount\n1,1,credit_card,1000\n"
                                   "2,2,credit_card,2000\n3,3,coupon,100\n4,4,bank_transfer,2500\n"
                                   "5,4,gift_card,300\n"),
        "models/staging/stg_customers.sql": (
            "select id as customer_id, first_name, last_name from {{ ref('raw_customers') }}\n"),
        "models/staging/stg_orders.sql": (
            "select id as order_id, user_id as customer_id, order_date, status\n"
            "from {{ ref('raw_orders') }}\n"),
        "models/staging/stg_payments.sql": (
            "select id as payment_id, order_id, payment_method, amount / 100 as amount\n"
            "from {{ ref('raw_payments') }}\n"),
        "models/orders.sql": (
            "{% set payment_methods = ['credit_card', 'coupon', 'bank_transfer', 'gift_card'] %}\n"
            "with order_payments as (\n  select order_id,\n"
            "  {% for m in payment_methods -%}\n"
            "  sum(case when payment_method = '{{ m }}' then amount else 0 end) as {{ m }}_amount,\n"
            "  {% endfor -%}\n  sum(amount) as total_amount\n"
            "  from {{ ref('stg_payments') }} group by order_id\n)\n"
            "select o.order_id, o.customer_id, o.order_date, o.status,\n"
            "  {% for m in payment_methods -%} p.{{ m }}_amount, {% endfor -%}\n"
            "  p.total_amount as amount\n"
            "from {{ ref('stg_orders') }} o left join order_payments p on o.order_id = p.order_id\n"),
        "models/customers.sql": (
            "with customer_orders as (\n"
            "  select customer_id, min(order_date) as first_order, max(order_date) as most_recent_order,\n"
            "         count(order_id) as number_of_orders\n"
            "  from {{ ref('stg_orders') }} group by customer_id\n),\n"
            "customer_payments as (\n"
            "  select o.customer_id, sum(p.amount) as total_amount\n"
            "  from {{ ref('stg_payments') }} p left join {{ ref('stg_orders') }} o on p.order_id = o.order_id\n"
            "  group by o.customer_id\n)\n"
            "select c.customer_id, c.first_name, c.last_name, co.first_order, co.most_recent_order,\n"
            "       co.number_of_orders, cp.total_amount as customer_lifetime_value\n"
            "from {{ ref('stg_customers') }} c\n"
            "left join customer_orders co on c.customer_id = co.customer_id\n"
            "left join customer_payments cp on c.customer_id = cp.customer_id\n"),
        "models/schema.yml": (
            "version: 2\nmodels:\n  - name: customers\n    columns:\n      - name: customer_id\n"
            "        tests: [unique, not_null]\n  - name: orders\n    columns:\n"
            # jaffle_shop's foreign key: each order's customer is a customer
            "      - name: customer_id\n        tests:\n          - not_null\n"
            "          - relationships: {to: \"ref('customers')\", field: customer_id}\n"
            "      - name: status\n        description: '{{ doc(\"orders_status\") }}'\n"),
        "models/staging/schema.yml": (
            "version: 2\nmodels:\n  - name: stg_orders\n    columns:\n      - name: order_id\n"
            "        tests: [unique, not_null]\n"),
        "models/docs.md": ("{% docs orders_status %}\n\nOrders can be one of the following statuses:"
                           " placed, shipped, completed, return_pending, returned.\n\n{% enddocs %}\n"),
    }
    for rel, text in files.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text, encoding="utf-8")


def have_jaffle() -> bool:
    """Whether a copy of jaffle_shop_duckdb (a checkout or a bare git dir) is on this machine."""
    return (JAFFLE / "dbt_project.yml").is_file() or ((JAFFLE / "HEAD").is_file() and (JAFFLE / "objects").is_dir())


def copy_project(dest: Path, which: str = "jaffle_shop_duckdb") -> str:
    """Copy jaffle_shop_duckdb (a checkout or a bare git dir) into `dest`, or write our own."""
    dest.mkdir(parents=True)
    if which == "own":
        _own_project(dest)
        return "own"
    if (JAFFLE / "dbt_project.yml").is_file():
        shutil.copytree(JAFFLE, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
        return "jaffle_shop_duckdb"
    if (JAFFLE / "HEAD").is_file() and (JAFFLE / "objects").is_dir():
        archive = subprocess.run(["git", "--git-dir", str(JAFFLE), "archive", "HEAD"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return "jaffle_shop_duckdb"
    _own_project(dest)
    return "own"


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "ae", "GIT_AUTHOR_EMAIL": "ae@example", "GIT_COMMITTER_NAME": "ae",
           "GIT_COMMITTER_EMAIL": "ae@example"}
    subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)


def tacit(repo: Path, *args: str) -> Result:
    old = os.getcwd()
    os.chdir(repo)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(old)


def dbt_build(repo: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    """`dbt build` in process; test name -> {status, failures, message}."""
    from tacit_gen.targets.dbt.engine import invoke

    shutil.rmtree(repo / "target", ignore_errors=True)
    invoke(repo, "build")
    results = json.loads((repo / "target" / "run_results.json").read_text())["results"]
    manifest = json.loads((repo / "target" / "manifest.json").read_text())
    out = {}
    for r in results:
        node = manifest["nodes"].get(r["unique_id"], {})
        out[node.get("name", r["unique_id"])] = {"status": r["status"], "failures": r.get("failures"),
                                                 "message": r.get("message"), "type": node.get("resource_type")}
    return out


@pytest.fixture(scope="module", params=["own", *(["jaffle_shop_duckdb"] if have_jaffle() else [])])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project after the steps of docs/dbt-project.md, committed; nothing rendered yet.

    `jaffle_shop_duckdb` is the real project (fetched, never committed here): a case only with a
    copy on this machine, never the small project passed off as it; `own` always runs."""
    repo = tmp_path_factory.mktemp("dbtproj") / "jaffle_shop"
    assert copy_project(repo, request.param) == request.param
    (repo / "profiles.yml").write_text(yaml.safe_dump({"jaffle_shop": {"target": "dev", "outputs": {
        "dev": {"type": "duckdb", "path": str(repo / "jaffle_shop.duckdb"), "threads": 1}}}}))
    (repo / "tacit-gen.toml").write_text(SETTINGS, encoding="utf-8")
    (repo / "contracts").mkdir()
    (repo / "contracts" / "orders.yaml").write_text(ORDERS, encoding="utf-8")
    (repo / "contracts" / "customers.yaml").write_text(CUSTOMERS, encoding="utf-8")
    text = (repo / "dbt_project.yml").read_text(encoding="utf-8")
    text = text.replace('model-paths: ["models"]', 'model-paths: ["models", "generated/dbt"]')
    text = text.replace('macro-paths: ["macros"]', 'macro-paths: ["macros", "generated/dbt_macros"]')
    assert "generated/dbt_macros" in text
    (repo / "dbt_project.yml").write_text(text, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    return repo


def test_the_flow_in_a_real_dbt_project(project: Path) -> None:
    repo = project
    res = tacit(repo, "render")  # the settings file alone: no flags
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (repo / "generated").iterdir()) == ["dbt", "dbt_macros"]
    assert sorted(p.name for p in (repo / "generated" / "dbt").iterdir()) == ["customers.yml", "orders.yml"]

    # the models are still described in models/schema.yml: check says so before dbt does
    res = tacit(repo, "check")
    assert res.exit_code == 1 and "D400 model orders is described here" in res.output, res.output
    schema = repo / "models" / "schema.yml"
    doc = yaml.safe_load(schema.read_text())
    doc["models"] = [m for m in doc["models"] if m["name"] not in ("orders", "customers")]
    schema.write_text(yaml.safe_dump(doc, sort_keys=False))
    res = tacit(repo, "check")
    assert res.exit_code == 0, res.output
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "contracts for orders and customers")

    # 1. dbt build passes, with the generated tests named after their model
    results = dbt_build(repo)
    failed = {k: v for k, v in results.items() if v["status"] not in ("pass", "success")}
    assert not failed, failed
    assert results["orders__range_amount"]["status"] == "pass"
    assert results["orders__not_null_customer_id"]["status"] == "pass"
    assert results["customers__unique_customer_id"]["status"] == "pass"
    # the foreign key is dbt's relationships test, on the project's own customers model
    assert results["orders__references_customer_id"]["status"] == "pass"
    # the doc block survived into dbt's manifest
    manifest = json.loads((repo / "target" / "manifest.json").read_text())
    status = manifest["nodes"]["model.jaffle_shop.orders"]["columns"]["status"]["description"]
    assert status.strip().startswith("Orders can be one of the following statuses"), status

    # 2. the version gate: an unknown base is exit 2, never a silent pass
    res = tacit(repo, "check", "--base", "no-such-rev")
    assert res.exit_code == 2 and "unknown revision 'no-such-rev'" in res.output, res.output

    # 3. a project-level +severity: warn would turn the generated tests into warnings
    original = (repo / "dbt_project.yml").read_text()
    (repo / "dbt_project.yml").write_text(original + "\ndata_tests:\n  jaffle_shop:\n    +severity: warn\n")
    res = tacit(repo, "check")
    assert res.exit_code == 1 and "D401 data_tests.jaffle_shop.+severity" in res.output, res.output
    (repo / "dbt_project.yml").write_text(original)

    # 4. a planted negative amount fails the test that names the model, with a count
    payments = repo / "seeds" / "raw_payments.csv"
    payments.write_text(payments.read_text().rstrip("\n") + "\n9999,1,credit_card,-500000\n")
    # and an order of a customer the customers model does not have fails the foreign key
    orders = repo / "seeds" / "raw_orders.csv"
    # and (not_null = "test") an order without a customer fails a not_null test with its count,
    # while the model itself still builds (no constraint stops it and skips what follows)
    orders.write_text(orders.read_text().rstrip("\n") + "\n100,9999,2018-04-10,placed\n"
                      "101,,2018-04-11,placed\n")
    results = dbt_build(repo)
    assert results["orders__references_customer_id"]["status"] == "fail", results
    assert results["orders__references_customer_id"]["failures"] == 1  # the NULL passes it
    assert results["orders__range_amount"]["status"] == "fail", results
    assert results["orders__range_amount"]["failures"] == 1
    assert results["orders__not_null_customer_id"]["status"] == "fail", results
    assert results["orders__not_null_customer_id"]["failures"] == 1
    assert results["orders"]["status"] == "success", results["orders"]
