//! How long the search behind a design took, and whether it ended within
//! or stopped at its plan budget (issue 45): a closing section of the human
//! reports (text, Markdown, HTML). Never in the JSON or SARIF: those are
//! compared byte for byte from run to run (by tools, by CI, by squill's
//! own tests), and a time differs on every run; whether the search
//! stopped is in every format already, as the budget finding.

/// What the caller saw of the search: the library measures no time (the
/// same design must come out everywhere), the command line does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchRun {
    /// Wall-clock seconds the search and the report's values took.
    pub seconds: f64,
    /// Operation plans priced.
    pub planned: u64,
    /// Whether a search stopped at its budget.
    pub stopped: bool,
}

/// The heading of the closing section.
pub(in crate::outputs) const HEADING: &str = "Search";

/// The sentence the human reports close with.
pub(in crate::outputs) fn sentence(run: &SearchRun) -> String {
    let ending = if run.stopped {
        "stopped at its budget: the design is the best found, and a longer search might find a cheaper one"
    } else {
        "ended within its budget"
    };
    format!(
        "The search took {}, priced {} operation {} and {ending}.",
        took(run.seconds),
        crate::words::int(run.planned),
        if run.planned == 1 { "plan" } else { "plans" },
    )
}

/// Seconds as a reader takes them in: milliseconds under one second.
fn took(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{:.1} ms", seconds * 1000.0)
    } else {
        format!("{seconds:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outputs::design::{Format, render, render_run, sample};

    /// The report with the time in its closing sentence replaced by
    /// `[time]`, so two runs' reports compare.
    fn redacted(report: &str) -> String {
        let at = report.find("The search took ").expect("a search sentence") + 16;
        let end = at + report[at..].find(", priced").expect("the plans priced");
        format!("{}[time]{}", &report[..at], &report[end..])
    }

    /// Each human format is the report without the run, then the closing
    /// section; the time is the only thing two runs' reports differ in.
    /// JSON is the same with a run as without one, to the byte.
    #[test]
    fn the_human_reports_close_with_the_search_and_the_json_leaves_it_out() {
        let design = sample::product_parts();
        let fast = SearchRun {
            seconds: 0.0123,
            planned: 57,
            stopped: false,
        };
        let slow = SearchRun {
            seconds: 12.34,
            ..fast
        };
        for format in [Format::Text, Format::Markdown, Format::Html] {
            let plain = render(&design, format, false);
            let a = render_run(&design, format, false, Some(&fast));
            let b = render_run(&design, format, false, Some(&slow));
            assert_ne!(a, b, "{format:?}: the time is in the report");
            assert_eq!(redacted(&a), redacted(&b), "{format:?}");
            if format != Format::Html {
                assert!(a.starts_with(&plain), "{format:?}: the report comes first");
            }
            assert!(
                redacted(&a).contains(
                    "The search took [time], priced 57 operation plans and ended within its budget."
                ),
                "{format:?}"
            );
        }
        assert!(render_run(&design, Format::Text, false, Some(&slow)).contains("took 12.3 s,"));
        assert!(render_run(&design, Format::Text, false, Some(&fast)).contains("took 12.3 ms,"));
        for run in [fast, slow] {
            assert_eq!(
                render_run(&design, Format::Json, false, Some(&run)),
                render(&design, Format::Json, false)
            );
        }
    }

    /// A search stopped at its budget says so, and that the design may not
    /// be the cheapest.
    #[test]
    fn a_stopped_search_says_so() {
        let run = SearchRun {
            seconds: 3.0,
            planned: 1,
            stopped: true,
        };
        assert_eq!(
            sentence(&run),
            "The search took 3.0 s, priced 1 operation plan and stopped at its budget: the design is the best found, and a longer search might find a cheaper one."
        );
    }
}
