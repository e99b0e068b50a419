{#-
  Generic tests for the clauses dbt has no built-in test for (freshness, cadence, catalog unit and
  bounds, revision window), plus self-contained versions of the dbt_utils tests
  (`dbt_tests: native`). Each test returns the failing rows; NULL operands pass (SQL CHECK
  semantics), nullability is checked by the model's not_null constraints.
-#}

{#- ---------- helpers (dispatched per adapter) ---------- -#}

{% macro tacit_instant(value) %}{{ return(adapter.dispatch('tacit_instant')(value)) }}{% endmacro %}
{% macro default__tacit_instant(value) %}cast({{ dbt.string_literal(value) }} as timestamp with time zone){% endmacro %}
{% macro snowflake__tacit_instant(value) %}to_timestamp_tz({{ dbt.string_literal(value) }}){% endmacro %}
{% macro bigquery__tacit_instant(value) %}timestamp({{ dbt.string_literal(value) }}){% endmacro %}
{% macro databricks__tacit_instant(value) %}to_timestamp({{ dbt.string_literal(value) }}){% endmacro %}
{% macro spark__tacit_instant(value) %}cast({{ dbt.string_literal(value) }} as timestamp){% endmacro %}

{% macro tacit_now() %}
  {%- set pinned = var('tacit_now', none) -%}
  {%- if pinned is none -%}{{ dbt.current_timestamp() }}{%- else -%}{{ tacit_instant(pinned) }}{%- endif -%}
{% endmacro %}

{% macro tacit_seconds_between(start, stop) %}{{ return(adapter.dispatch('tacit_seconds_between')(start, stop)) }}{% endmacro %}
{#- in microseconds, the finest instant the engines hold (in milliseconds a cadence step of 1 s + 1 us passed where every other engine failed it) -#}
{% macro default__tacit_seconds_between(start, stop) %}({{ dbt.datediff(start, stop, 'microsecond') }} / 1000000.0){% endmacro %}
{#- dbt-postgres's datediff casts to ::timestamp, in the session time zone: epochs of the instants instead. -#}
{% macro postgres__tacit_seconds_between(start, stop) %}(extract(epoch from {{ stop }}) - extract(epoch from {{ start }})){% endmacro %}
{% macro duckdb__tacit_seconds_between(start, stop) %}((epoch_us({{ stop }}) - epoch_us({{ start }})) / 1000000.0){% endmacro %}
{#- dbt-spark's millisecond datediff ends in an unparenthesised sum: subtract epoch microseconds. -#}
{% macro spark__tacit_seconds_between(start, stop) %}((unix_micros({{ stop }}) - unix_micros({{ start }})) / 1000000.0){% endmacro %}

{#- A float32 column read as a double: compared as the value it holds (DuckDB compares a FLOAT with a number in float32). -#}
{% macro tacit_double(value) %}{{ return(adapter.dispatch('tacit_double')(value)) }}{% endmacro %}
{% macro default__tacit_double(value) %}cast({{ value }} as double precision){% endmacro %}
{% macro bigquery__tacit_double(value) %}cast({{ value }} as float64){% endmacro %}
{% macro databricks__tacit_double(value) %}cast({{ value }} as double){% endmacro %}
{% macro spark__tacit_double(value) %}cast({{ value }} as double){% endmacro %}

{% macro tacit_utc_date(value) %}{{ return(adapter.dispatch('tacit_utc_date')(value)) }}{% endmacro %}
{% macro default__tacit_utc_date(value) %}cast(({{ value }}) at time zone 'UTC' as date){% endmacro %}
{% macro bigquery__tacit_utc_date(value) %}date({{ value }}, 'UTC'){% endmacro %}
{% macro snowflake__tacit_utc_date(value) %}cast(convert_timezone('UTC', {{ value }}) as date){% endmacro %}
{% macro databricks__tacit_utc_date(value) %}to_date(from_utc_timestamp({{ value }}, 'UTC')){% endmacro %}
{#- the UTC day of an instant, whatever the session time zone -#}
{% macro spark__tacit_utc_date(value) %}date_from_unix_date(cast(floor(unix_micros({{ value }}) / 86400000000) as int)){% endmacro %}

{#- Mon-Fri days from Monday 0001-01-01 up to and including the date (a running weekday count; the epoch of tacit_gen/semantics/calendar.py, shared by every target). -#}
{% macro tacit_weekday_number(value) -%}
  {%- set d = dbt.datediff("cast('0001-01-01' as date)", tacit_utc_date(value), 'day') -%}
  (5 * floor(({{ d }}) / 7.0) + least(({{ d }}) - 7 * floor(({{ d }}) / 7.0) + 1, 5))
{%- endmacro %}

{% macro tacit_column_list(columns, alias=none) -%}
  {%- set out = [] -%}
  {%- for c in columns -%}{%- do out.append((alias ~ '.' if alias else '') ~ c) -%}{%- endfor -%}
  {{- out | join(', ') -}}
{%- endmacro %}


{#- ---------- time-series and catalog clauses ---------- -#}

{#- freshness:<c>  max(c) >= now - max_age_seconds; now is var('tacit_now') when set. An empty table fails. -#}
{% test tacit_freshness(model, column_name, max_age_seconds) %}
with latest as (
    select max({{ column_name }}) as latest_value
    from {{ model }}
)
select latest_value, {{ tacit_now() }} as pinned_now
from latest
where latest_value is null
   or {{ tacit_seconds_between('latest_value', tacit_now()) }} > {{ max_age_seconds }}
{% endtest %}

{#- freshness:<c> on a date column: the newest date at most max_age_days before the UTC date of now
    (whole days); now is var('tacit_now') when set. An empty table fails. -#}
{% test tacit_freshness_days(model, column_name, max_age_days) %}
with latest as (
    select max({{ column_name }}) as latest_value
    from {{ model }}
)
select latest_value, {{ tacit_utc_date(tacit_now()) }} as pinned_date
from latest
where latest_value is null
   or {{ dbt.datediff('latest_value', tacit_utc_date(tacit_now()), 'day') }} > {{ max_age_days }}
{% endtest %}


{#- cadence:<c>  per series, latest revision of each point, consecutive points interval apart within
    tolerance_pct percent; shorter steps always fail, longer steps (gaps) fail unless gaps_allowed.
    Every row at the latest revision of a point counts: a duplicated point is a step of 0 and fails.
    With var('tacit_since'): the points at or after it, each series' first one stepped from its last
    point before it (docs/increments.md); steps wholly before it are not checked.
    With catalog: the interval is catalog.catalog_column (seconds) for the series; a point of a series
    with no catalog interval fails. -#}
{% test tacit_cadence(model, column_name, series, interval_seconds=none, tolerance_pct=0, gaps_allowed=false, revision_column=none, catalog=none, catalog_key=none, catalog_column=none, sessions=none, calendar=none, sessions_relation=none, sessions_calendar=none, sessions_session=none, sessions_open=none, sessions_close=none, calendar_catalog=none, calendar_catalog_key=none, calendar_catalog_column=none, calendar_series=none) %}
{%- if sessions is not none %}
{{ tacit_session_cadence(model, column_name, series, sessions, interval_seconds, tolerance_pct, gaps_allowed, revision_column, calendar, sessions_relation, sessions_calendar, sessions_session, sessions_open, sessions_close, calendar_catalog, calendar_catalog_key, calendar_catalog_column, calendar_series) }}
{%- else %}
{%- set part = series | join(', ') -%}
{%- set since = var('tacit_since', none) -%}
with {% if since -%}
tacit_boundary as (
    select {% for s in series %}{{ s }} as tacit_b{{ loop.index }}, {% endfor %}max({{ column_name }}) as tacit_last
    from {{ model }}
    where {{ column_name }} < {{ tacit_instant(since) }}
    {%- for s in series %} and {{ s }} is not null{% endfor %}
    {{ 'group by ' ~ part if series }}
),
{% endif -%}
points as (
    select {{ part }}{{ ', ' if series }}{{ column_name }} as tacit_t,
        rank() over (partition by {{ part }}{{ ', ' if series }}{{ column_name }} order by {{ revision_column or column_name }} desc) as tacit_rank
    from {{ model }}
    {%- if since %}
    left join tacit_boundary on {% for s in series %}tacit_b{{ loop.index }} = {{ s }} and {% endfor %}1 = 1
    {%- endif %}
    where {{ column_name }} is not null
    {%- for s in series %} and {{ s }} is not null{% endfor %}
    {%- if since %}
      and ({{ column_name }} >= {{ tacit_instant(since) }} or {{ column_name }} = tacit_last)
    {%- endif %}
),
latest as (
    select * from points where tacit_rank = 1
),
steps as (
    select {{ tacit_column_list(series, 'l') }}{{ ', ' if series }}l.tacit_t,
        lag(l.tacit_t) over ({{ 'partition by ' ~ tacit_column_list(series, 'l') if series }} order by l.tacit_t) as tacit_prev,
        {%- if catalog is not none %}
        c.{{ catalog_column }} as tacit_interval
        {%- else %}
        {{ interval_seconds }} as tacit_interval
        {%- endif %}
    from latest l
    {%- if catalog is not none %}
    left join {{ catalog }} c on l.{{ series[0] }} = c.{{ catalog_key }}
    {%- endif %}
),
measured as (
    select *, {{ tacit_seconds_between('tacit_prev', 'tacit_t') }} as tacit_step_seconds
    from steps
)
select *
from measured
where (tacit_interval is null
   or (tacit_prev is not null and (
        tacit_step_seconds < tacit_interval * (1 - {{ tolerance_pct }} / 100.0)
        {%- if not gaps_allowed %}
        or tacit_step_seconds > tacit_interval * (1 + {{ tolerance_pct }} / 100.0)
        {%- endif %}
   )))
{%- if since %}
  and tacit_t >= {{ tacit_instant(since) }}
{%- endif %}
{%- endif %}
{% endtest %}


{#- cadence:<c> over exchange sessions (tacit_gen/semantics/sessions.py): each point's session
    number (NULL outside every session; Monday to Friday at 00:00 UTC without a calendar); a point
    fails outside sessions, off the interval within one session (`within`), as a second bar of a
    session (`trading_day`), or after a skipped session unless gaps are allowed; unless gaps are
    allowed, the first bar of a session after an earlier one fails `within` when it starts later
    than the open (beyond the tolerance) or the earlier session's last bar ends more than one
    interval (and the tolerance) before its last whole-interval end. A per-series
    calendar (calendar none, calendar_catalog set) takes each series' code from the catalog; a
    series missing there is in no session. -#}
{% macro tacit_session_cadence(model, column_name, series, sessions, interval_seconds, tolerance_pct, gaps_allowed, revision_column, calendar, sessions_relation, sessions_calendar, sessions_session, sessions_open, sessions_close, calendar_catalog=none, calendar_catalog_key=none, calendar_catalog_column=none, calendar_series=none) %}
{%- set part = series | join(', ') -%}
{%- set since_epoch = tacit_seconds_between(tacit_instant('1970-01-01T00:00:00+00:00'), 'l.tacit_t') -%}
with points as (
    select {{ part }}{{ ', ' if series }}{{ column_name }} as tacit_t,
        rank() over (partition by {{ part }}{{ ', ' if series }}{{ column_name }} order by {{ revision_column or column_name }} desc) as tacit_rank
    from {{ model }}
    where {{ column_name }} is not null
    {%- for s in series %} and {{ s }} is not null{% endfor %}
),
latest as (
    select * from points where tacit_rank = 1
),
{%- if sessions_relation is none %}
placed as (
    {%- set d = dbt.datediff("cast('0001-01-01' as date)", tacit_utc_date('l.tacit_t'), 'day') %}
    select {{ tacit_column_list(series, 'l') }}{{ ', ' if series }}l.tacit_t,
        case when ({{ d }}) - 7 * floor(({{ d }}) / 7.0) < 5 and ({{ since_epoch }}) % 86400 = 0
             then {{ tacit_weekday_number('l.tacit_t') }} end as tacit_sn
    from latest l
),
{%- else %}
ses as (
    select {{ sessions_calendar }} as tacit_cal, {{ sessions_session }} as tacit_day,
        {{ sessions_open }} as tacit_open, {{ sessions_close }} as tacit_close,
        row_number() over (partition by {{ sessions_calendar }} order by {{ sessions_session }}) as tacit_sn
    from {{ sessions_relation }}
),
placed as (
    select {{ tacit_column_list(series, 'l') }}{{ ', ' if series }}l.tacit_t, s.tacit_sn
    {%- if sessions == 'within' %},
        {{ tacit_seconds_between('s.tacit_open', 'l.tacit_t') }} as tacit_lead_seconds,
        floor({{ tacit_seconds_between('s.tacit_open', 's.tacit_close') }} / {{ interval_seconds }}) * {{ interval_seconds }}
            - {{ tacit_seconds_between('s.tacit_open', 'l.tacit_t') }} as tacit_tail_seconds
    {%- endif %}
    from latest l
    {%- if calendar is none and calendar_catalog is not none %}
    left join {{ calendar_catalog }} tacit_cc on tacit_cc.{{ calendar_catalog_key }} = l.{{ calendar_series }}
    left join ses s on s.tacit_cal = tacit_cc.{{ calendar_catalog_column }}
    {%- else %}
    left join ses s on s.tacit_cal = {{ dbt.string_literal(calendar) }}
    {%- endif %}
    {%- if sessions == 'within' %}
        and {{ tacit_seconds_between('s.tacit_open', 'l.tacit_t') }} >= 0
        and {{ tacit_seconds_between('l.tacit_t', 's.tacit_close') }} >= {{ interval_seconds }}
    {%- else %}
        and s.tacit_day = {{ tacit_utc_date('l.tacit_t') }}
        and ({{ tacit_seconds_between('s.tacit_open', 'l.tacit_t') }} = 0 or ({{ since_epoch }}) % 86400 = 0)
    {%- endif %}
),
{%- endif %}
steps as (
    select *,
        lag(tacit_t) over ({{ 'partition by ' ~ part if series }} order by tacit_t) as tacit_prev,
        lag(tacit_sn) over ({{ 'partition by ' ~ part if series }} order by tacit_t) as tacit_prev_sn
        {%- if sessions == 'within' and sessions_relation is not none %},
        lag(tacit_tail_seconds) over ({{ 'partition by ' ~ part if series }} order by tacit_t) as tacit_prev_tail_seconds
        {%- endif %}
    from placed
),
measured as (
    select *, {{ tacit_seconds_between('tacit_prev', 'tacit_t') }} as tacit_step_seconds
    from steps
)
select *
from measured
where (tacit_sn is null
   or (tacit_prev_sn is not null and (
        {%- if sessions == 'within' %}
        (tacit_sn = tacit_prev_sn and (
            tacit_step_seconds < {{ interval_seconds }} * (1 - {{ tolerance_pct }} / 100.0)
            {%- if not gaps_allowed %}
            or tacit_step_seconds > {{ interval_seconds }} * (1 + {{ tolerance_pct }} / 100.0)
            {%- endif %}))
        {%- if sessions_relation is not none and not gaps_allowed %}
        or (tacit_sn > tacit_prev_sn and (
            tacit_lead_seconds > {{ interval_seconds }} * ({{ tolerance_pct }} / 100.0)
            or tacit_prev_tail_seconds > {{ interval_seconds }} * (1 + {{ tolerance_pct }} / 100.0)))
        {%- endif %}
        {%- else %}
        tacit_sn = tacit_prev_sn
        {%- endif %}
        {%- if not gaps_allowed %}
        or tacit_sn > tacit_prev_sn + 1
        {%- endif %}
   )))
{%- set since = var('tacit_since', none) %}
{%- if since %}
{#- the increment: the points at or after it, each stepped from its predecessor wherever that is -#}
  and tacit_t >= {{ tacit_instant(since) }}
{%- endif %}
{% endmacro %}


{#- completeness:<c>  per series, each window between its first and last readings holds at least
    min_pct% of the expected readings (less what allowed outages cover); per session, the windows are
    the sessions of the series' calendar. windows_sql is rendered by tacit-gen per dialect
    (tacit_gen.sql.completeness); the model and the outages, sessions and catalog relations go in.
    With var('tacit_since'): the windows that end after it (docs/increments.md). -#}
{% test tacit_completeness(model, column_name, windows_sql, outages=none, sessions=none, calendar_catalog=none) %}
{%- set filled = windows_sql | replace('__tacit_model__', model | string) -%}
{%- if outages is not none %}{% set filled = filled | replace('__tacit_outages__', outages | string) %}{% endif -%}
{%- if sessions is not none %}{% set filled = filled | replace('__tacit_sessions__', sessions | string) %}{% endif -%}
{%- if calendar_catalog is not none %}{% set filled = filled | replace('__tacit_calendar_catalog__', calendar_catalog | string) %}{% endif -%}
{%- set since = var('tacit_since', none) -%}
{%- if since %}
{#- the increment: the windows (sessions) that end after it, each counting all of its readings -#}
select * from (
{{ filled }}
) tacit_windows_after
where window_end_ms > {{ tacit_seconds_between(tacit_instant('1970-01-01T00:00:00+00:00'), tacit_instant(since)) }} * 1000
{%- else %}
{{ filled }}
{%- endif %}
{% endtest %}


{#- catalog_unit:<c>  c equals the catalog's catalog_column for the row's key; no catalog entry fails. -#}
{% test tacit_catalog_unit(model, column_name, key, catalog, catalog_key, catalog_column) %}
select m.*
from {{ model }} m
left join {{ catalog }} c on m.{{ key }} = c.{{ catalog_key }}
where m.{{ column_name }} is not null
  and (c.{{ catalog_key }} is null or not (m.{{ column_name }} = c.{{ catalog_column }}))
{% endtest %}


{#- catalog_bounds:<c>  catalog.min_column <= c <= catalog.max_column for the row's key; no catalog entry fails. -#}
{% test tacit_catalog_bounds(model, column_name, key, catalog, catalog_key, min_column, max_column, as_double=false) %}
{{ tacit_rows_outside_catalog_bounds(model, column_name, key, catalog, catalog_key, min_column, max_column, as_double) }}
{% endtest %}

{#- the rows of catalog_bounds and plausible: outside [min_column, max_column] of the row's catalog entry, or
    without one -#}
{% macro tacit_rows_outside_catalog_bounds(model, column_name, key, catalog, catalog_key, min_column, max_column, as_double=false) %}
{%- set value = tacit_double('m.' ~ column_name) if as_double else 'm.' ~ column_name %}
select m.*
from {{ model }} m
left join {{ catalog }} c on m.{{ key }} = c.{{ catalog_key }}
where m.{{ column_name }} is not null
  and (c.{{ catalog_key }} is null
       or not ({{ value }} >= c.{{ min_column }})
       or not ({{ value }} <= c.{{ max_column }}))
{% endmacro %}


{#- plausible:<c>  catalog.min_column <= c <= catalog.max_column (the plausible bounds) for the row's key;
    no catalog entry fails; always rendered with severity warn (a plausibility check never fails a build). -#}
{% test tacit_plausible(model, column_name, key, catalog, catalog_key, min_column, max_column, as_double=false) %}
{{ tacit_rows_outside_catalog_bounds(model, column_name, key, catalog, catalog_key, min_column, max_column, as_double) }}
{% endtest %}


{#- catalog_dimension:<c>  the catalog's unit (catalog_column) for the row's key is one of units (the unit
    table's spellings of the contract's dimension, exact text); no catalog entry or a NULL unit fails. -#}
{% test tacit_catalog_dimension(model, column_name, key, catalog, catalog_key, catalog_column, units, dimension=none) %}
select m.*
from {{ model }} m
left join {{ catalog }} c on m.{{ key }} = c.{{ catalog_key }}
where m.{{ key }} is not null
  and (c.{{ catalog_key }} is null
       or c.{{ catalog_column }} is null
       or c.{{ catalog_column }} not in ({% for u in units %}'{{ u | replace("'", "''") }}'{{ ", " if not loop.last }}{% endfor %}))
{% endtest %}


{#- revision_window  no revision > 0 when not allowed; otherwise a revised row (revision > 0) must be
    ingested within window_seconds, or within business_days Mon-Fri days after the event date (UTC).
    With var('tacit_since'): the rows whose time_column is at or after it (or NULL). -#}
{% test tacit_revision_window(model, column_name, allowed=true, time_column=none, ingest_column=none, window_seconds=none, business_days=none, calendar=none, sessions_relation=none, sessions_calendar=none, sessions_session=none, sessions_open=none, sessions_close=none, calendar_catalog=none, calendar_catalog_key=none, calendar_catalog_column=none, calendar_series=none) %}
{%- set per_series = calendar is none and calendar_catalog is not none and sessions_relation is not none %}
{%- set m = 'tacit_m.' if per_series else '' %}
{%- set since = var('tacit_since', none) if time_column is not none else none %}
{%- if per_series %}
select tacit_m.*
from {{ model }} tacit_m
left join {{ calendar_catalog }} tacit_cc on tacit_cc.{{ calendar_catalog_key }} = tacit_m.{{ calendar_series }}
{%- else %}
select *
from {{ model }}
{%- endif %}
where
{%- if not allowed %}
    {{ m }}{{ column_name }} <> 0
{%- elif ingest_column is none or (window_seconds is none and business_days is none) %}
    1 = 2
{%- else %}
    {{ m }}{{ column_name }} > 0 and (
    {%- if business_days is not none and sessions_relation is not none %}
        (select count(*) from {{ sessions_relation }} tacit_s
         where tacit_s.{{ sessions_calendar }} = {{ 'tacit_cc.' ~ calendar_catalog_column if per_series else dbt.string_literal(calendar) }}
           and tacit_s.{{ sessions_session }} > {{ tacit_utc_date(m ~ time_column) }}
           and tacit_s.{{ sessions_session }} <= {{ tacit_utc_date(m ~ ingest_column) }}) > {{ business_days }}
    {%- elif business_days is not none %}
        {{ tacit_weekday_number(ingest_column) }} - {{ tacit_weekday_number(time_column) }} > {{ business_days }}
    {%- else %}
        {{ tacit_seconds_between(time_column, ingest_column) }} > {{ window_seconds }}
    {%- endif %}
    )
{%- endif %}
{%- if since %}
    and ({{ m }}{{ time_column }} >= {{ tacit_instant(since) }} or {{ m }}{{ time_column }} is null)
{%- endif %}
{% endtest %}


{#- ---------- self-contained replacements for the dbt_utils tests (dbt_tests: native) ---------- -#}

{#- unique:<key>  With since_column (a key without the time column) and var('tacit_since'): the keys of
    the rows at or after it (or with a NULL time) that occur more than once in the whole model, a
    semi-join on the increment's keys (docs/increments.md). -#}
{% test tacit_unique_combination_of_columns(model, combination_of_columns, since_column=none) %}
{%- set col_list = combination_of_columns | join(', ') -%}
{%- set since = var('tacit_since', none) if since_column is not none else none -%}
{%- if since %}
with tacit_all as (
    select * from {{ model }}
),
tacit_new as (
    select distinct {{ col_list }}
    from tacit_all
    where {{ since_column }} >= {{ tacit_instant(since) }} or {{ since_column }} is null
)
select {{ tacit_column_list(combination_of_columns, 'tacit_all') }}, count(*) as n_records
from tacit_all
join tacit_new on {% for c in combination_of_columns %}tacit_new.{{ c }} = tacit_all.{{ c }}{{ ' and ' if not loop.last }}{% endfor %}
group by {{ tacit_column_list(combination_of_columns, 'tacit_all') }}
having count(*) > 1
{%- else %}
select {{ col_list }}, count(*) as n_records
from {{ model }}
group by {{ col_list }}
having count(*) > 1
{%- endif %}
{% endtest %}

{% test tacit_accepted_range(model, column_name, min_value=none, max_value=none, min_inclusive=true, max_inclusive=true, as_double=false) %}
{%- set value = tacit_double(column_name) if as_double else column_name %}
select *
from {{ model }}
where 1 = 2
{%- if min_value is not none %}
   or not ({{ value }} {{ '>=' if min_inclusive else '>' }} {{ min_value }})
{%- endif %}
{%- if max_value is not none %}
   or not ({{ value }} {{ '<=' if max_inclusive else '<' }} {{ max_value }})
{%- endif %}
{% endtest %}

{% test tacit_expression_is_true(model, expression) %}
select *
from {{ model }}
where not ({{ expression }})
{% endtest %}
