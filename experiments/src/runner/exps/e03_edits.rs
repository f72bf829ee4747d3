//! E3: the rebuild after every kind of edit, against the pipeline building the edited
//! program from scratch. The series of edits ([`EditSeries`]) is E4's as well.

use std::path::Path;

use rill_gen::{EditKind, Program};

use super::measure::{
    build_side, interleave, phase_rows, pipeline_build, row_from, IncrementalRun, Runs,
};
use super::{merge_shape, EXTRA_SHAPES, SEED};
use crate::runner::rill::Mode;
use crate::runner::table::Row;
use crate::runner::workload::{self, OnDisk, Shape};
use crate::runner::{Ctx, Outcome};

/// One edit scenario of E3 and E4: the edited program and its expected exit code, on the
/// cache of a build of the generated program (and, for the error fix, of the build with
/// the error after it). E8 builds the same cases with rustc.
pub(super) struct EditCase {
    pub(super) name: String,
    /// The program with the error, built after the good one when the edit fixes it.
    pub(super) error_build: Option<Program>,
    pub(super) after: Program,
    pub(super) expect_after: [i32; 1],
    pub(super) description: String,
    /// Functions whose machine code the edit changes (leaf-body edits only).
    code_changes: Option<usize>,
}

impl EditCase {
    fn new(name: &str, after: Program, expect_after: i32, description: String) -> EditCase {
        EditCase {
            name: name.to_string(),
            error_build: None,
            after,
            expect_after: [expect_after],
            description,
            code_changes: None,
        }
    }

    /// The query row's note: the edit, and what is special about it.
    fn note(&self) -> String {
        let mut note = self.description.clone();
        if let Some(n) = self.code_changes {
            note.push_str(&format!("; machine code of {n} function(s) changes"));
        }
        if self.error_build.is_some() {
            note.push_str("; cache of a good build, then the build with the error");
        }
        note
    }
}

/// Every kind of edit on `program` (of about `size` lines). The leaf-body edit is one
/// that changes machine code; when the generator's first choice changes none (a folded
/// literal), it is measured as well, as `leaf-body-folded`. The error fix is measured on
/// the cache left by a good build followed by the build with the error.
pub(super) fn edit_cases(ctx: &Ctx, shape: Shape, program: &Program, size: usize) -> Vec<EditCase> {
    let mut out = Vec::new();
    let mut error_program = None;
    for &kind in EditKind::ALL {
        match kind {
            EditKind::FixError => {
                let Some(bad) = &error_program else { continue };
                if let Some(e) = workload::edit(bad, EditKind::FixError, SEED) {
                    let mut c = EditCase::new(kind.name(), e.program, 0, e.description);
                    c.error_build = Some(bad.clone());
                    out.push(c);
                }
            }
            EditKind::IntroduceError => {
                if let Some(e) = workload::edit(program, kind, SEED) {
                    error_program = Some(e.program.clone());
                    out.push(EditCase::new(kind.name(), e.program, 1, e.description));
                }
            }
            EditKind::LeafBody => {
                let leaf = ctx.leaf_edits(shape, size, SEED);
                if let Some((e, n)) = &leaf.changing {
                    let mut c =
                        EditCase::new(kind.name(), e.program.clone(), 0, e.description.clone());
                    c.code_changes = Some(*n);
                    out.push(c);
                }
                if let Some(e) = &leaf.folded {
                    let mut c = EditCase::new(
                        "leaf-body-folded",
                        e.program.clone(),
                        0,
                        format!("{} (folded by the optimizer)", e.description),
                    );
                    c.code_changes = Some(0);
                    out.push(c);
                }
            }
            _ => {
                if let Some(e) = workload::edit(program, kind, SEED) {
                    out.push(EditCase::new(kind.name(), e.program, 0, e.description));
                }
            }
        }
    }
    out
}

/// The rebuilds after every kind of edit on the program of the main size, and the
/// no-change rebuild, on the query architecture, with the phase breakdown of each (and of
/// the pipeline's from-scratch build).
pub(super) struct EditSeries<'a> {
    /// The progress label; lowercased, the work directory.
    pub label: &'a str,
    /// The query configurations: `--cutoff` of every build (`None`: rill's default) and
    /// the architecture column of their rows. All are built in the same rounds.
    pub variants: &'a [(Option<&'a str>, &'a str)],
    /// The pipeline building the same program from scratch in the same rounds as well
    /// (rows `scratch`/`pipeline` and `<edit>`/`pipeline`).
    pub with_pipeline: bool,
    /// The shape of the generated program.
    pub shape: Shape,
    /// Only these edit scenarios (by name) besides the no-change rebuild; `None`: all.
    pub only: Option<&'a [&'a str]>,
}

impl<'v> EditSeries<'v> {
    pub fn run(&self, ctx: &Ctx) -> Result<Outcome, String> {
        let mut o = Outcome::default();
        let size = ctx.profile.main_size;
        let program = ctx.program(self.shape, size, SEED);
        let lines = program.total_lines();
        let mut cases = edit_cases(ctx, self.shape, &program, size);
        if let Some(only) = self.only {
            cases.retain(|c| only.contains(&c.name.as_str()));
        }
        ctx.start_progress(self.label, cases.len() as u64 + 1);
        let dir = match self.shape {
            Shape::Default => ctx.dir(&self.label.to_lowercase()),
            s => ctx.dir(&format!("{}-{}", self.label.to_lowercase(), s.name())),
        };
        let base = OnDisk::create(&dir.join("base"), program.clone())?;
        let base_root = base.root();
        let pipeline = self
            .with_pipeline
            .then_some((base_root.as_path(), &[0][..]));
        let runs = self.measure(ctx, &dir, "noop", &program, pipeline, |run| run);
        let mut runs = runs.iter();
        if self.with_pipeline {
            let pipe = runs.next().unwrap_or(&Ok(Vec::new())).clone();
            o.rows
                .push(row_from(ctx, "scratch", "pipeline", size, &pipe));
            o.phases
                .extend(phase_rows("scratch", "pipeline", size, &pipe));
        }
        for ((_, arch), r) in self.variants.iter().zip(runs) {
            o.rows.push(row_from(ctx, "no-change", arch, size, r));
            o.phases.extend(phase_rows("no-change", arch, size, r));
        }
        ctx.step();
        for case in &cases {
            ctx.set_message(&case.name);
            let pipeline_disk = if self.with_pipeline {
                let d = dir.join(format!("{}-pipeline", case.name));
                Some(OnDisk::create(&d, case.after.clone())?)
            } else {
                None
            };
            let pipeline_root = pipeline_disk.as_ref().map(OnDisk::root);
            let pipeline = pipeline_root
                .as_deref()
                .map(|r| (r, &case.expect_after[..]));
            let runs = self.measure(ctx, &dir, &case.name, &program, pipeline, |mut run| {
                if let Some(bad) = &case.error_build {
                    run = run.then_built(bad, &[1]);
                }
                run.edited(&case.after).expect_exit(&case.expect_after)
            });
            let mut runs = runs.iter();
            let pipe = if self.with_pipeline {
                runs.next()
            } else {
                None
            };
            for ((_, arch), r) in self.variants.iter().zip(runs) {
                let mut row = row_from(ctx, &case.name, arch, size, r);
                row.note = case.note();
                o.rows.push(row);
                o.phases.extend(phase_rows(&case.name, arch, size, r));
            }
            if let Some(pipe) = pipe {
                let mut row = row_from(ctx, &case.name, "pipeline", size, pipe);
                row.note = "the edited program from scratch, in rounds with the query rebuilds"
                    .to_string();
                o.rows.push(row);
            }
            ctx.step();
        }
        ctx.finish_progress();
        o.samples = ctx.take_samples();
        for r in &mut o.rows {
            r.lines = Some(lines);
        }
        for p in &mut o.phases {
            p.lines = Some(lines);
        }
        Ok(o)
    }

    /// The runs of one scenario: the pipeline building the program in `pipeline.0`,
    /// expecting the exit codes `pipeline.1` (if given), then every variant's rebuild
    /// (`configure` sets the edit on a run of `program`), all in the same rounds.
    fn measure<'r>(
        &self,
        ctx: &'r Ctx,
        dir: &Path,
        name: &str,
        program: &'r Program,
        pipeline: Option<(&'r Path, &'r [i32])>,
        configure: impl Fn(IncrementalRun<'r>) -> IncrementalRun<'r>,
    ) -> Vec<Runs>
    where
        'v: 'r,
    {
        let mut sides = Vec::new();
        if let Some((root, expect)) = pipeline {
            let b = pipeline_build(ctx, Mode::Run, root);
            sides.push(build_side(ctx, b, expect));
        }
        for (i, &(cutoff, _)) in self.variants.iter().enumerate() {
            let work = dir.join(if i == 0 {
                name.to_string()
            } else {
                format!("{name}-{i}")
            });
            let run = IncrementalRun::new(ctx, work, program).cutoff(cutoff);
            sides.push(configure(run).side());
        }
        interleave(ctx, ctx.profile.reps, sides)
    }
}

/// The rebuilds after the edit kinds named in `only` (and the no-change rebuild) on the
/// default shape at the profile's main size, with the pipeline building each edited program
/// in the same rounds: E3 as the scaling profile runs it at every size.
pub fn run_kinds(ctx: &Ctx, only: &[&str]) -> Result<Outcome, String> {
    EditSeries {
        label: "E3",
        variants: &[(None, "query")],
        with_pipeline: true,
        shape: Shape::Default,
        only: Some(only),
    }
    .run(ctx)
}

pub fn run(ctx: &Ctx) -> Result<Outcome, String> {
    let series = EditSeries {
        label: "E3",
        variants: &[(None, "query")],
        with_pipeline: true,
        shape: Shape::Default,
        only: None,
    };
    let mut o = series.run(ctx)?;
    values(ctx, &mut o);
    // The other shapes: the no-change rebuild and the leaf-body edit (the headline's)
    // only, to keep the suite's time in check.
    let size = ctx.profile.main_size;
    for shape in EXTRA_SHAPES {
        let series = EditSeries {
            shape,
            only: Some(&["leaf-body"]),
            ..series
        };
        let mut x = series.run(ctx).unwrap_or_else(|why| {
            ctx.finish_progress();
            let mut x = Outcome::default();
            x.rows.push(
                Row::new("leaf-body", "query", size).without_number(format!("failed: {why}")),
            );
            x
        });
        x.paired_ratio_value(
            "e3.leaf_edit_over_pipeline",
            ("leaf-body", "query", size),
            ("leaf-body", "pipeline", size),
        );
        let scope = format!(
            "shape {}: the no-change rebuild and the leaf-body edit only",
            shape.name()
        );
        merge_shape(
            ctx,
            &mut o,
            shape,
            x,
            &scope,
            &[("e3.leaf_edit_over_pipeline", "e3_leaf_edit_over_pipeline")],
        );
    }
    Ok(o)
}

/// The headline key and paper values of E3.
fn values(ctx: &Ctx, o: &mut Outcome) {
    let size = ctx.profile.main_size;
    // Each edit's ratio is over the pipeline building the edited program in the same
    // rounds as the query rebuilds.
    o.ratio_headline(
        "e3_leaf_edit_over_pipeline",
        ("leaf-body", "query", size),
        ("leaf-body", "pipeline", size),
    );
    o.value("e3.size", Some(size as f64));
    o.median_value("e3.pipeline_ms", ("scratch", "pipeline", size));
    o.median_value("e3.noop_ms", ("no-change", "query", size));
    let names: Vec<&str> = EditKind::ALL
        .iter()
        .map(|k| k.name())
        .chain(["leaf-body-folded"])
        .collect();
    for name in names {
        let key = name.replace('-', "_");
        o.median_value(&format!("e3.{key}_ms"), (name, "query", size));
        let row = (name, "query", size);
        o.counter_value(&format!("e3.{key}_codegen"), row, |r| r.codegen_executed);
        o.counter_value(&format!("e3.{key}_executed"), row, |r| r.executed);
    }
    let leaf = ctx.leaf_edits(Shape::Default, size, SEED);
    o.value(
        "e3.leaf_body_code_changes",
        leaf.changing.as_ref().map(|(_, n)| *n as f64),
    );
    o.text(
        "e3.leaf_body_edit",
        leaf.changing
            .as_ref()
            .map_or("none found".to_string(), |(e, _)| e.description.clone()),
    );
    o.text(
        "e3.leaf_body_folded_edit",
        leaf.folded
            .as_ref()
            .map_or("none".to_string(), |e| e.description.clone()),
    );
    // Every edit's rebuild over the pipeline building the edited program in its rounds.
    let ok: Vec<f64> = EditKind::ALL
        .iter()
        .filter_map(|k| {
            let key = format!("e3.{}_over_pipeline", k.name().replace('-', "_"));
            o.paired_ratio_value(
                &key,
                (k.name(), "query", size),
                (k.name(), "pipeline", size),
            )
            .map(|iv| iv.value)
        })
        .collect();
    o.value(
        "e3.worst_over_pipeline",
        ok.iter().copied().reduce(f64::max),
    );
    o.value("e3.best_over_pipeline", ok.iter().copied().reduce(f64::min));
}
