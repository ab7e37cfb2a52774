{% for line in header -%}
// {{ line }}
{% endfor -%}
model {{ name }}
{%- for w in warnings %}
  // WARNING: {{ w }}
{%- endfor %}
{%- for c in classes %}
{{ c }}
{%- endfor %}
{%- for e in elements %}
{{ e }}
{%- endfor %}
{%- if !replicates.is_empty() %}
  // DECL: replicates (what each holds) and dummy derivatives
{%- for r in replicates %}
{{ r.0 }} // {{ r.1 }}
{%- endfor %}
{%- endif %}
{%- if !initial.is_empty() %}
initial equation
{%- for item in initial %}
{{ item }}
{%- endfor %}
{%- endif %}
{%- for part in parts %}
{{ part }}
{%- endfor %}
{%- if !sections.is_empty() %}
equation
{%- for s in sections %}
  // {{ s.title }}
{%- for item in s.items %}
{{ item }}
{%- endfor %}
{%- endfor %}
{%- endif %}
{%- if !omc_options.is_empty() %}
{%- for why in omc_why %}
  // omc: {{ why }}
{%- endfor %}
  annotation(__OpenModelica_commandLineOptions = "{{ omc_options }}");
{%- endif %}
end {{ name }};
