//! The template language of `paper/template.md`: values, tables, and text chosen by the
//! numbers.
//!
//! - `{{key}}`: a value of the results (a number, formatted; a text; `null` renders as
//!   `n/a`); `{{pct:key}}`: a fraction as a percentage; `{{ci:key}}` and `{{ci:pct:key}}`:
//!   the value followed by its 95 % interval and repetitions, "v (95 % CI l–h, n = N)",
//!   when the results carry `key_low`, `key_high` (and `key_n`), the value alone otherwise;
//!   `{{table:eNN}}`: the rows of `results/eNN-*.csv` as a Markdown table (E8's as its
//!   comparison table, `paper::e8_table`).
//! - `{{if COND}}…{{else}}…{{end}}`: the first text when the condition holds, the second
//!   when it does not (`{{else}}…` may be left out). A third part, `{{unmeasured}}…`,
//!   before `{{end}}` is used when a value of the condition is `null`; without it nothing
//!   is rendered then. Blocks nest.
//! - `{{claim COND}}`: renders nothing, and makes filling fail when the condition is
//!   false: a sentence written unconditionally next to it states what the condition
//!   checks, so the paper cannot be generated while the results contradict it.
//!
//! A condition is one or more comparisons joined by `and`: `KEY OP NUMBER` or `KEY OP KEY`,
//! where OP is one of `<`, `<=`, `>`, `>=`, `==`, `!=`. A key that the results lack
//! altogether is an error (the template and the runner disagree); a `null` one makes the
//! condition unknown.

use super::{format_number, format_sig, Tables, Values};

/// A comparison of a condition.
#[derive(Clone, Debug, PartialEq)]
struct Comparison {
    left: String,
    op: &'static str,
    right: Operand,
}

#[derive(Clone, Debug, PartialEq)]
enum Operand {
    Number(f64),
    Key(String),
}

/// A condition: comparisons that must all hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    text: String,
    parts: Vec<Comparison>,
}

const OPS: [&str; 6] = ["<=", ">=", "==", "!=", "<", ">"];

impl Condition {
    /// Parses `KEY OP NUMBER|KEY [and ...]`.
    pub fn parse(text: &str) -> Result<Condition, String> {
        let mut parts = Vec::new();
        for part in text.split(" and ") {
            let part = part.trim();
            let (at, op) = OPS
                .iter()
                .filter_map(|op| part.find(op).map(|i| (i, *op)))
                .min_by_key(|(i, op)| (*i, usize::MAX - op.len()))
                .ok_or_else(|| format!("no comparison in the condition `{text}`"))?;
            let left = part[..at].trim();
            let right = part[at + op.len()..].trim();
            if left.is_empty() || right.is_empty() || left.contains(' ') || right.contains(' ') {
                return Err(format!("malformed comparison `{part}` in `{text}`"));
            }
            let right = match right.parse::<f64>() {
                Ok(x) => Operand::Number(x),
                Err(_) => Operand::Key(right.to_string()),
            };
            parts.push(Comparison {
                left: left.to_string(),
                op,
                right,
            });
        }
        Ok(Condition {
            text: text.trim().to_string(),
            parts,
        })
    }

    /// `Some(holds)`, or `None` when a value is `null`; a key the results lack is an
    /// error.
    pub fn eval(&self, values: &Values) -> Result<Option<bool>, String> {
        let get = |k: &str| -> Result<Option<f64>, String> {
            match values.get(k) {
                None => Err(k.to_string()),
                Some(v) => Ok(v.as_f64().filter(|x| x.is_finite())),
            }
        };
        let mut all = Some(true);
        for c in &self.parts {
            let l = get(&c.left)?;
            let r = match &c.right {
                Operand::Number(x) => Some(*x),
                Operand::Key(k) => get(k)?,
            };
            let holds = match (l, r) {
                (Some(l), Some(r)) => Some(match c.op {
                    "<" => l < r,
                    "<=" => l <= r,
                    ">" => l > r,
                    ">=" => l >= r,
                    "==" => l == r,
                    _ => l != r,
                }),
                _ => None,
            };
            all = match (all, holds) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
        }
        Ok(all)
    }

    /// The keys this condition reads.
    pub fn keys(&self) -> Vec<&str> {
        let mut v = Vec::new();
        for c in &self.parts {
            v.push(c.left.as_str());
            if let Operand::Key(k) = &c.right {
                v.push(k.as_str());
            }
        }
        v
    }
}

/// A piece of a parsed template.
#[derive(Debug)]
enum Node {
    Text(String),
    /// `{{key}}`, `{{pct:key}}`, `{{ci:key}}`, `{{ci:pct:key}}`, `{{table:eNN}}`.
    Value(String),
    If {
        cond: Condition,
        then: Vec<Node>,
        otherwise: Vec<Node>,
        unmeasured: Option<Vec<Node>>,
    },
    Claim(Condition),
}

/// The tags and texts of a template, in order.
fn lex(template: &str) -> Result<Vec<(bool, &str)>, String> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        if start > 0 {
            out.push((false, &rest[..start]));
        }
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| "unclosed `{{` in the template".to_string())?;
        out.push((true, after[..end].trim()));
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        out.push((false, rest));
    }
    Ok(out)
}

/// Which part of an `if` block the parser is filling.
#[derive(PartialEq)]
enum Part {
    Then,
    Else,
    Unmeasured,
}

fn parse(tokens: &[(bool, &str)], pos: &mut usize, top: bool) -> Result<Vec<Node>, String> {
    let mut nodes = Vec::new();
    while *pos < tokens.len() {
        let (tag, text) = tokens[*pos];
        if !tag {
            nodes.push(Node::Text(text.to_string()));
            *pos += 1;
            continue;
        }
        if matches!(text, "else" | "unmeasured" | "end") {
            if top {
                return Err(format!("`{{{{{text}}}}}` without `{{{{if}}}}`"));
            }
            return Ok(nodes);
        }
        *pos += 1;
        if let Some(c) = text.strip_prefix("if ") {
            let cond = Condition::parse(c)?;
            let (mut then, mut otherwise, mut unmeasured) = (Vec::new(), Vec::new(), None);
            let mut part = Part::Then;
            loop {
                let body = parse(tokens, pos, false)?;
                match part {
                    Part::Then => then = body,
                    Part::Else => otherwise = body,
                    Part::Unmeasured => unmeasured = Some(body),
                }
                let Some((_, tag)) = tokens.get(*pos) else {
                    return Err(format!("`{{{{if {c}}}}}` without `{{{{end}}}}`"));
                };
                *pos += 1;
                part = match *tag {
                    "end" => break,
                    "else" if part == Part::Then => Part::Else,
                    "unmeasured" if part != Part::Unmeasured => Part::Unmeasured,
                    t => return Err(format!("misplaced `{{{{{t}}}}}` in `{{{{if {c}}}}}`")),
                };
            }
            nodes.push(Node::If {
                cond,
                then,
                otherwise,
                unmeasured,
            });
        } else if let Some(c) = text.strip_prefix("claim ") {
            nodes.push(Node::Claim(Condition::parse(c)?));
        } else {
            nodes.push(Node::Value(text.to_string()));
        }
    }
    Ok(nodes)
}

/// What filling found wrong.
#[derive(Default)]
struct Problems {
    missing: Vec<String>,
    contradicted: Vec<String>,
}

pub(super) fn render_value(v: &serde_json::Value, pct: bool) -> String {
    match v {
        serde_json::Value::Null => "n/a".to_string(),
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if pct {
                format!("{} %", format_sig(x * 100.0))
            } else {
                format_number(x)
            }
        }
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The value `key` with its interval: "v (95 % CI l–h, n = N)" when the values carry
/// `key_low` and `key_high`, the value alone otherwise.
fn with_interval(values: &Values, key: &str, v: &serde_json::Value, pct: bool) -> String {
    let value = render_value(v, pct);
    let num = |k: String| values.get(&k).and_then(|v| v.as_f64());
    let (Some(lo), Some(hi)) = (num(format!("{key}_low")), num(format!("{key}_high"))) else {
        return value;
    };
    if v.is_null() {
        return value;
    }
    let b = |x: f64| format_sig(if pct { x * 100.0 } else { x });
    let n = num(format!("{key}_n"))
        .map(|n| format!(", n = {}", format_number(n)))
        .unwrap_or_default();
    let unit = if pct { " %" } else { "" };
    format!("{value} (95 % CI {}–{}{unit}{n})", b(lo), b(hi))
}

fn render(
    nodes: &[Node],
    values: &Values,
    tables: &Tables,
    out: &mut String,
    problems: &mut Problems,
) {
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Value(key) => {
                if let Some(id) = key.strip_prefix("table:") {
                    match tables.get(id) {
                        Some(rows) => out.push_str(&super::experiment_table(id, rows)),
                        None => problems.missing.push(key.clone()),
                    }
                    continue;
                }
                let (ci, k) = match key.strip_prefix("ci:") {
                    Some(k) => (true, k),
                    None => (false, key.as_str()),
                };
                let (pct, k) = match k.strip_prefix("pct:") {
                    Some(k) => (true, k),
                    None => (false, k),
                };
                match values.get(k) {
                    Some(v) if ci => out.push_str(&with_interval(values, k, v, pct)),
                    Some(v) => out.push_str(&render_value(v, pct)),
                    None => problems.missing.push(key.clone()),
                }
            }
            Node::If {
                cond,
                then,
                otherwise,
                unmeasured,
            } => match cond.eval(values) {
                Err(k) => problems.missing.push(k),
                Ok(Some(true)) => render(then, values, tables, out, problems),
                Ok(Some(false)) => render(otherwise, values, tables, out, problems),
                Ok(None) => {
                    if let Some(u) = unmeasured {
                        render(u, values, tables, out, problems);
                    }
                }
            },
            Node::Claim(cond) => match cond.eval(values) {
                Err(k) => problems.missing.push(k),
                Ok(Some(false)) => {
                    let now: Vec<String> = cond
                        .keys()
                        .iter()
                        .map(|k| {
                            format!(
                                "{k} = {}",
                                values
                                    .get(*k)
                                    .map_or("?".into(), |v| render_value(v, false))
                            )
                        })
                        .collect();
                    problems
                        .contradicted
                        .push(format!("`{}` ({})", cond.text, now.join(", ")));
                }
                Ok(_) => {}
            },
        }
    }
}

/// Fills `template` from `values` and `tables` (`eNN` to its rows). Fails when the
/// template names a value the results lack, or when a `{{claim}}` is false.
pub fn fill(template: &str, values: &Values, tables: &Tables) -> Result<String, String> {
    let tokens = lex(template)?;
    let mut pos = 0;
    let nodes = parse(&tokens, &mut pos, true)?;
    let mut out = String::with_capacity(template.len() * 2);
    let mut problems = Problems::default();
    render(&nodes, values, tables, &mut out, &mut problems);
    let mut errors = Vec::new();
    if !problems.missing.is_empty() {
        problems.missing.sort();
        problems.missing.dedup();
        errors.push(format!(
            "the template refers to values that results/ lacks: {}",
            problems.missing.join(", ")
        ));
    }
    if !problems.contradicted.is_empty() {
        errors.push(format!(
            "the paper states claims that the results contradict: {}",
            problems.contradicted.join("; ")
        ));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors.join("; "))
    }
}

/// Values from pairs, for tests.
#[cfg(test)]
pub fn values_of(pairs: &[(&str, serde_json::Value)]) -> Values {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect::<Values>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill_with(t: &str, pairs: &[(&str, serde_json::Value)]) -> Result<String, String> {
        fill(t, &values_of(pairs), &Tables::new())
    }

    #[test]
    fn values_percentages_and_intervals() {
        let v = [
            ("a", 0.18431.into()),
            ("a_low", 0.17.into()),
            ("a_high", 0.2.into()),
            ("a_n", 5.into()),
            ("b", 1.5766.into()),
            ("t", "text".into()),
            ("z", serde_json::Value::Null),
        ];
        let s = fill_with(
            "{{a}} {{pct:a}} {{ci:a}} {{ci:pct:a}} {{ci:b}} {{t}} {{z}}",
            &v,
        )
        .unwrap();
        assert_eq!(
            s,
            "0.184 18.4 % 0.184 (95 % CI 0.170–0.200, n = 5) 18.4 % (95 % CI 17.0–20.0 %, n = 5) 1.58 text n/a"
        );
        let e = fill_with("{{nope}} {{table:e1}}", &v).unwrap_err();
        assert!(e.contains("nope") && e.contains("table:e1"), "{e}");
    }

    #[test]
    fn conditions_choose_the_text() {
        let t = "x is {{if x < 0.5}}small{{else}}large{{unmeasured}}unknown{{end}}.";
        assert_eq!(fill_with(t, &[("x", 0.22.into())]).unwrap(), "x is small.");
        assert_eq!(fill_with(t, &[("x", 0.8.into())]).unwrap(), "x is large.");
        assert_eq!(
            fill_with(t, &[("x", serde_json::Value::Null)]).unwrap(),
            "x is unknown."
        );
        // Without an unmeasured part, an unknown condition renders nothing.
        let t = "[{{if x >= y and x <= 2}}in{{else}}out{{end}}]";
        let v = |x: f64| [("x", x.into()), ("y", 1.0.into())];
        assert_eq!(fill_with(t, &v(1.5)).unwrap(), "[in]");
        assert_eq!(fill_with(t, &v(0.5)).unwrap(), "[out]");
        assert_eq!(fill_with(t, &v(3.0)).unwrap(), "[out]");
        assert_eq!(
            fill_with(t, &[("x", serde_json::Value::Null), ("y", 1.0.into())]).unwrap(),
            "[]"
        );
        // Nested blocks, and values inside them.
        let t = "{{if a > 0}}A{{if b > 0}} and B={{b}}{{end}}{{else}}none{{end}}";
        assert_eq!(
            fill_with(t, &[("a", 1.into()), ("b", 2.into())]).unwrap(),
            "A and B=2"
        );
        // A key the results lack is an error, also in a condition.
        assert!(fill_with(t, &[("a", 1.into())]).unwrap_err().contains("b"));
    }

    #[test]
    fn a_contradicted_claim_fails() {
        let t = "Interface edits stay cheap.{{claim e3.interface < 0.5}}";
        assert_eq!(
            fill_with(t, &[("e3.interface", 0.22.into())]).unwrap(),
            "Interface edits stay cheap."
        );
        let e = fill_with(t, &[("e3.interface", 0.8.into())]).unwrap_err();
        assert!(
            e.contains("contradict") && e.contains("e3.interface = 0.800"),
            "{e}"
        );
        // An unmeasured value contradicts nothing.
        assert!(fill_with(t, &[("e3.interface", serde_json::Value::Null)]).is_ok());
    }

    #[test]
    fn malformed_templates_are_errors() {
        for t in [
            "{{if x < 1}}open",
            "{{else}}",
            "{{end}}",
            "{{if x}}a{{end}}",
            "{{if x < }}a{{end}}",
            "{{if x < 1}}a{{else}}b{{else}}c{{end}}",
            "{{claim x ~ 1}}",
            "{{x",
        ] {
            assert!(fill_with(t, &[("x", 1.into())]).is_err(), "{t}");
        }
    }
}
