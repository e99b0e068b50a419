{#- tacit-gen stand-in for dbt_utils generic tests (same names, arguments and semantics). -#}

{% test unique_combination_of_columns(model, combination_of_columns, quote_columns=false) %}
  {{ return(adapter.dispatch('test_unique_combination_of_columns', 'dbt_utils')(model, combination_of_columns, quote_columns)) }}
{% endtest %}

{% macro default__test_unique_combination_of_columns(model, combination_of_columns, quote_columns=false) %}
{%- set cols = [] -%}
{%- for c in combination_of_columns -%}
  {%- do cols.append(adapter.quote(c) if quote_columns else c) -%}
{%- endfor -%}
{%- set col_list = cols | join(', ') -%}
with duplicated_groups as (
    select {{ col_list }}, count(*) as n_records
    from {{ model }}
    group by {{ col_list }}
    having count(*) > 1
)
select * from duplicated_groups
{% endmacro %}


{% test accepted_range(model, column_name, min_value=none, max_value=none, inclusive=true) %}
  {{ return(adapter.dispatch('test_accepted_range', 'dbt_utils')(model, column_name, min_value, max_value, inclusive)) }}
{% endtest %}

{% macro default__test_accepted_range(model, column_name, min_value=none, max_value=none, inclusive=true) %}
{%- set ge = '>=' if inclusive else '>' -%}
{%- set le = '<=' if inclusive else '<' -%}
with out_of_range as (
    select *
    from {{ model }}
    where 1 = 2
    {%- if min_value is not none %}
        or not ({{ column_name }} {{ ge }} {{ min_value }})
    {%- endif %}
    {%- if max_value is not none %}
        or not ({{ column_name }} {{ le }} {{ max_value }})
    {%- endif %}
)
select * from out_of_range
{% endmacro %}


{% test expression_is_true(model, expression, column_name=none) %}
  {{ return(adapter.dispatch('test_expression_is_true', 'dbt_utils')(model, expression, column_name)) }}
{% endtest %}

{% macro default__test_expression_is_true(model, expression, column_name=none) %}
select *
from {{ model }}
{%- if column_name is none %}
where not ({{ expression }})
{%- else %}
where not ({{ column_name }} {{ expression }})
{%- endif %}
{% endmacro %}
