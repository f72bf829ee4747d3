//! The scaling profile in the paper: `scaling.run` (1 when `results/values.json` holds a
//! scaling run, 0 otherwise), `scaling.table` (per build: the median at every size, the
//! ratio over the pipeline at the largest size, the exponent fitted on the actual line
//! counts and the growth from the smallest to the largest size, each with its 95 %
//! interval), `scaling.shapes_table` (the shapes at the largest size) and
//! `scaling.largest_lines` (the actual line count of the largest default-shape program).
//! Every number comes from the `scaling.*` values that `runner::scaling` wrote.

use super::incremental::show_size;
use super::{format_sig, num, Values};
use crate::runner::scaling::{key, sizes_of};

/// The builds of the table: (experiment, scenario, architecture, label).
const BUILDS: &[(&str, &str, &str, &str)] = &[
    ("e1", "scratch", "pipeline", "pipeline from scratch (E1)"),
    (
        "e1",
        "scratch",
        "query-memory",
        "query from scratch, in memory (E1)",
    ),
    (
        "e1",
        "scratch",
        "query-disk",
        "query from scratch, with a cache (E1)",
    ),
    ("e6", "no-change", "query", "no-change rebuild (E6)"),
    ("e6", "leaf-body", "query", "leaf-body edit (E6)"),
    ("e3", "leaf-body", "query", "leaf-body edit (E3)"),
    ("e3", "signature", "query", "signature edit (E3)"),
    ("e3", "struct-field", "query", "struct-field edit (E3)"),
    ("e3", "add-fn", "query", "add a function (E3)"),
    ("e3", "remove-fn", "query", "remove a function (E3)"),
];

/// The builds measured on every shape at the largest size.
const SHAPE_BUILDS: &[(&str, &str, &str, &str)] = &[
    (
        "e1",
        "scratch",
        "query-disk",
        "query from scratch / pipeline",
    ),
    ("e6", "no-change", "query", "no-change / pipeline"),
    ("e6", "leaf-body", "query", "leaf-body edit / pipeline"),
];

const SHAPES: &[&str] = &["default", "small-fns", "big-fns"];

/// `v [low–high]` of `k` (with `k_low`, `k_high`), shown by `show`; `–` without a value.
fn with_interval(values: &Values, k: &str, show: impl Fn(f64) -> String) -> String {
    match num(values, k) {
        None => "–".to_string(),
        Some(v) => match (
            num(values, &format!("{k}_low")),
            num(values, &format!("{k}_high")),
        ) {
            (Some(lo), Some(hi)) => format!("{} [{}–{}]", show(v), show(lo), show(hi)),
            _ => show(v),
        },
    }
}

fn pct(x: f64) -> String {
    format!("{} %", format_sig(x * 100.0))
}

/// Adds `scaling.run`, `scaling.table`, `scaling.shapes_table` and
/// `scaling.largest_lines` to `values`.
pub fn derive(values: &mut Values) {
    let sizes = sizes_of(values);
    let run = sizes.len() >= 2;
    values.insert("scaling.run".into(), u8::from(run).into());
    if !run {
        values.insert("scaling.table".into(), "".into());
        values.insert("scaling.shapes_table".into(), "".into());
        values.insert("scaling.largest_lines".into(), serde_json::Value::Null);
        return;
    }
    let largest = *sizes.last().unwrap_or(&0);
    let lines_of = |values: &Values, size: usize| {
        num(
            values,
            &format!(
                "{}.at_{size}.lines",
                key("e6", "scratch", "pipeline", "default")
            ),
        )
    };
    let mut t = String::from("| build |");
    for &s in &sizes {
        let actual = lines_of(values, s).map(|l| format!(" ({} lines)", super::format_number(l)));
        t.push_str(&format!(
            " ms at {}{} |",
            show_size(s),
            actual.unwrap_or_default()
        ));
    }
    t.push_str(&format!(
        " / pipeline at {} | exponent | growth {} → {} |\n|---|",
        show_size(largest),
        show_size(sizes[0]),
        show_size(largest)
    ));
    t.push_str(&"---:|".repeat(sizes.len() + 3));
    t.push('\n');
    for (exp, scenario, arch, label) in BUILDS {
        let k = key(exp, scenario, arch, "default");
        let mut row = format!("| {label} |");
        for &s in &sizes {
            let ms = num(values, &format!("{k}.at_{s}.ms"));
            row.push_str(&format!(
                " {} |",
                ms.map(format_sig).unwrap_or_else(|| "–".into())
            ));
        }
        let over = format!("{k}.at_{largest}.over_pipeline");
        row.push_str(&format!(
            " {} | {} | {} |\n",
            if *arch == "pipeline" {
                "1".to_string()
            } else {
                with_interval(values, &over, pct)
            },
            with_interval(values, &format!("{k}.exponent"), format_sig),
            with_interval(values, &format!("{k}.growth"), |g| format!(
                "{}×",
                format_sig(g)
            )),
        ));
        t.push_str(&row);
    }
    values.insert("scaling.table".into(), t.into());
    let mut st = String::from("| shape (lines) |");
    for (.., label) in SHAPE_BUILDS {
        st.push_str(&format!(" {label} |"));
    }
    st.push_str("\n|---|");
    st.push_str(&"---:|".repeat(SHAPE_BUILDS.len()));
    st.push('\n');
    for shape in SHAPES {
        let lines = num(
            values,
            &format!(
                "{}.at_{largest}.lines",
                key("e6", "scratch", "pipeline", shape)
            ),
        );
        let Some(lines) = lines else { continue };
        st.push_str(&format!("| {shape} ({}) |", super::format_number(lines)));
        for (exp, scenario, arch, _) in SHAPE_BUILDS {
            let k = format!(
                "{}.at_{largest}.over_pipeline",
                key(exp, scenario, arch, shape)
            );
            let show = |x: f64| if *exp == "e1" { format_sig(x) } else { pct(x) };
            st.push_str(&format!(" {} |", with_interval(values, &k, show)));
        }
        st.push('\n');
    }
    values.insert("scaling.shapes_table".into(), st.into());
    let largest_lines = lines_of(values, largest);
    values.insert(
        "scaling.largest_lines".into(),
        largest_lines.map_or(serde_json::Value::Null, Into::into),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_come_from_the_scaling_values() {
        let mut v = Values::new();
        derive(&mut v);
        assert_eq!(v["scaling.run"], 0);
        let mut v: Values = [
            (
                "scaling.e6.scratch.pipeline.default.at_10000.lines",
                9_300.0,
            ),
            (
                "scaling.e6.scratch.pipeline.default.at_1000000.lines",
                933_791.0,
            ),
            (
                "scaling.e6.scratch.pipeline.small_fns.at_1000000.lines",
                990_000.0,
            ),
            ("scaling.e6.no_change.query.default.at_10000.ms", 4.0),
            ("scaling.e6.no_change.query.default.at_1000000.ms", 16.5),
            (
                "scaling.e6.no_change.query.default.at_1000000.over_pipeline",
                0.011,
            ),
            (
                "scaling.e6.no_change.query.default.at_1000000.over_pipeline_low",
                0.010,
            ),
            (
                "scaling.e6.no_change.query.default.at_1000000.over_pipeline_high",
                0.013,
            ),
            ("scaling.e6.no_change.query.default.exponent", 0.31),
            ("scaling.e6.no_change.query.default.exponent_low", 0.29),
            ("scaling.e6.no_change.query.default.exponent_high", 0.33),
            (
                "scaling.e6.no_change.query.small_fns.at_1000000.over_pipeline",
                0.02,
            ),
        ]
        .into_iter()
        .map(|(k, x)| (k.to_string(), serde_json::Value::from(x)))
        .collect();
        v.insert("scaling.sizes".into(), "10000, 1000000".into());
        derive(&mut v);
        assert_eq!(v["scaling.run"], 1);
        let t = v["scaling.table"].as_str().unwrap();
        assert!(
            t.starts_with("| build | ms at 10k (9,300 lines) | ms at 1M (933,791 lines) |"),
            "{t}"
        );
        assert!(
            t.contains("| no-change rebuild (E6) | 4.00 | 16.5 | 1.10 % [1.00 %–1.30 %] | 0.310 [0.290–0.330] | – |"),
            "{t}"
        );
        let s = v["scaling.shapes_table"].as_str().unwrap();
        assert!(
            s.contains("| small-fns (990,000) | – | 2.00 % | – |"),
            "{s}"
        );
        assert_eq!(v["scaling.largest_lines"], 933_791.0);
    }
}
