//! The diagram as SVG markup. The page sets it as the picture's inner HTML:
//! one string built here costs the page's bundle a few kilobytes, where the
//! same picture as a tree of typed view nodes cost it fifty.
//!
//! Shapes and words carry the meaning (a bar for a refusal, a cross for a
//! lost answer or a crash, dashes for what never arrived); colour, set by
//! the page's style sheet from `data-tone`, only repeats it.

use crate::display::{Num, escape};
use std::fmt::Write;

use lab_i18n::Locale;
use lab_i18n::i18n::td_string;

use super::{Diagram, Event, Role, Shape, TOP};

/// Where the headings of the lifelines sit.
const HEADING_Y: f64 = 16.0;
const NOTE_Y: f64 = 30.0;
/// How far a lost answer gets before it stops, as a share of its way.
const LOST_AT: f64 = 0.55;

/// What to draw besides the diagram itself.
#[derive(Debug, Clone, Copy)]
pub struct Drawing<'a> {
    /// Makes the arrowheads' ids unique on the page (a pane's id).
    pub id: &'a str,
    /// Events from this index on are drawn hidden (playback).
    pub shown: usize,
    /// Where the playhead is, if playback is on.
    pub playhead_y: Option<f64>,
    pub locale: Locale,
}

impl Diagram {
    /// The whole picture: an `<svg>` element, hidden from screen readers
    /// (the table beside it says the same).
    pub fn to_svg(&self, drawing: Drawing<'_>) -> String {
        let Drawing { id, .. } = drawing;
        let mut svg = String::with_capacity(4096 + self.events.len() * 256);
        let _ = write!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="picture" viewBox="0 0 {w:.0} {h:.0}" width="{w:.0}" height="{h:.0}" aria-hidden="true" focusable="false"><defs>"#,
            w = Num(self.width),
            h = Num(self.height)
        );
        for (name, view, reference, path) in [
            ("arrow", "0 0 10 10", 9, "M0 0 L10 5 L0 10"),
            ("bar", "0 0 10 10", 5, "M5 0 L5 10"),
            ("cross", "0 0 10 10", 5, "M1 1 L9 9 M9 1 L1 9"),
        ] {
            let _ = write!(
                svg,
                r#"<marker id="{id}-{name}" viewBox="{view}" refX="{reference}" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="{path}" fill="none"/></marker>"#
            );
        }
        svg.push_str("</defs>");
        for line in &self.lifelines {
            let _ = write!(
                svg,
                r#"<g class="lifeline" data-role="{role}"><text x="{x:.1}" y="{HEADING_Y}" text-anchor="middle" class="heading">{label}</text><text x="{x:.1}" y="{NOTE_Y}" text-anchor="middle" class="note">{note}</text><line x1="{x:.1}" y1="{top:.1}" x2="{x:.1}" y2="{h:.1}"/></g>"#,
                role = role_name(line.role),
                x = Num(line.x),
                top = Num(TOP - 10.0),
                h = Num(self.height),
                label = escape(&line.label),
                note = escape(&line.note),
            );
        }
        for fold in &self.folds {
            svg.push_str(r#"<g class="fold">"#);
            for line in &self.lifelines {
                let (x, y) = (Num(line.x), fold.y);
                let _ = write!(
                    svg,
                    r#"<path class="break" d="M{x:.1} {a:.1} l6 -4 l-12 -4 l6 -4 M{x:.1} {b:.1} l6 -4 l-12 -4 l6 -4"/>"#,
                    a = Num(y + 2.0),
                    b = Num(y + 10.0)
                );
            }
            let words = td_string!(
                drawing.locale,
                diagram.folded,
                ms = format!("{:.0}", Num(fold.skipped_ms))
            );
            let _ = write!(
                svg,
                r#"<text x="4" y="{y:.1}" class="fold-label">{words}</text></g>"#,
                y = Num(fold.y + 4.0),
                words = escape(&words)
            );
        }
        for (index, event) in self.events.iter().enumerate() {
            self.draw_event(&mut svg, event, id, index >= drawing.shown);
        }
        if let Some(y) = drawing.playhead_y.map(Num) {
            let _ = write!(
                svg,
                r#"<line class="playhead" x1="0" x2="{w:.0}" y1="{y:.1}" y2="{y:.1}"/>"#,
                w = Num(self.width)
            );
        }
        svg.push_str("</svg>");
        svg
    }

    /// One event: its line or mark, and its words.
    fn draw_event(&self, svg: &mut String, event: &Event, id: &str, hidden: bool) {
        let from = self.lifelines[event.from].x;
        let to = self.lifelines[event.to].x;
        let y = event.y;
        let shape = match event.shape {
            Shape::Arrow => "arrow",
            Shape::Refused => "refused",
            Shape::Lost => "lost",
            Shape::Mark => "mark",
        };
        let _ = write!(
            svg,
            r#"<g class="event{hidden}" data-shape="{shape}" data-tone="{tone}" data-on="{on}" data-request="{request}" data-y="{y:.1}" data-at="{at:.1}">"#,
            hidden = if hidden { " hidden" } else { "" },
            tone = event.tone,
            on = role_name(self.lifelines[event.from].role),
            request = event.request,
            y = Num(y),
            at = Num(event.at_ms),
        );
        // Words sit over the middle of their arrow, or by the request's
        // lifeline for an answer, where the lanes leave little room.
        let (label_x, anchor) = match event.shape {
            Shape::Mark => {
                if event.tone == "failure" {
                    let _ = write!(
                        svg,
                        r#"<path class="mark cross" d="M{x:.1} {y0:.1} l10 10 m0 -10 l-10 10"/>"#,
                        x = Num(from - 5.0),
                        y0 = Num(y - 5.0)
                    );
                } else {
                    let _ = write!(
                        svg,
                        r#"<circle class="mark" cx="{from:.1}" cy="{y:.1}" r="5"/>"#,
                        from = Num(from),
                        y = Num(y)
                    );
                }
                (from + 10.0, "start")
            }
            Shape::Lost => {
                let end = from + (to - from) * LOST_AT;
                let _ = write!(
                    svg,
                    r#"<line class="message" x1="{from:.1}" y1="{y:.1}" x2="{end:.1}" y2="{y:.1}" marker-end="url(#{id}-cross)" stroke-dasharray="4 3"/>"#,
                    from = Num(from),
                    y = Num(y),
                    end = Num(end)
                );
                (end, if to < from { "end" } else { "start" })
            }
            Shape::Arrow | Shape::Refused => {
                let head = if event.shape == Shape::Refused {
                    "bar"
                } else {
                    "arrow"
                };
                let _ = write!(
                    svg,
                    r#"<line class="message" x1="{from:.1}" y1="{y:.1}" x2="{to:.1}" y2="{y:.1}" marker-end="url(#{id}-{head})"/>"#,
                    from = Num(from),
                    y = Num(y),
                    to = Num(to)
                );
                if to < from {
                    (to + 6.0, "start")
                } else {
                    ((from + to) / 2.0, "middle")
                }
            }
        };
        let _ = write!(
            svg,
            r#"<text x="{label_x:.1}" y="{ty:.1}" text-anchor="{anchor}">{label}</text></g>"#,
            label_x = Num(label_x),
            ty = Num(y - 4.0),
            label = escape(&event.label)
        );
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Request => "request",
        Role::Server => "server",
        Role::Database => "database",
    }
}

#[cfg(test)]
mod tests {
    use lab_wire::{Step, StepKind};

    use super::*;
    use crate::diagram::Scale;

    fn step(seq: u64, request: u64, key: &str, at_ms: i64, kind: StepKind) -> Step {
        Step {
            seq,
            request,
            key: key.into(),
            at_us: at_ms * 1000,
            kind,
        }
    }

    fn drawing(shown: usize, playhead_y: Option<f64>) -> Drawing<'static> {
        Drawing {
            id: "pane-1",
            shown,
            playhead_y,
            locale: Locale::en,
        }
    }

    #[test]
    fn each_event_is_one_group_and_those_after_the_playhead_are_hidden() {
        let steps = vec![
            step(1, 1, "k1", 0, StepKind::KeyClaimed),
            step(2, 2, "k1", 1, StepKind::KeyConflict),
            step(3, 1, "k1", 500, StepKind::Crashed),
        ];
        let diagram = Diagram::of(&steps, 0, Scale::Folded, Locale::en);
        let svg = diagram.to_svg(drawing(2, Some(40.0)));
        assert_eq!(
            svg.matches(r#"<g class="event"#).count(),
            diagram.events.len()
        );
        assert_eq!(
            svg.matches(r#"<g class="event hidden""#).count(),
            diagram.events.len() - 2
        );
        assert!(svg.contains(r#"data-shape="refused""#), "{svg}");
        assert!(svg.contains(r##"marker-end="url(#pane-1-bar)""##));
        assert!(
            svg.contains(r#"class="mark cross""#),
            "the crash is a cross"
        );
        assert!(svg.contains(r#"class="playhead""#));
        assert!(
            svg.contains("⋯ 499 ms later ⋯"),
            "the long wait is folded: {svg}"
        );
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"));
        assert!(!diagram.to_svg(drawing(3, None)).contains("playhead"));
    }

    #[test]
    fn a_key_that_looks_like_markup_is_drawn_as_text() {
        let steps = vec![step(
            1,
            1,
            "<script>alert(1)</script>\"'&",
            0,
            StepKind::KeyClaimed,
        )];
        let svg = Diagram::of(&steps, 0, Scale::Folded, Locale::en).to_svg(drawing(9, None));
        assert!(!svg.contains("<script"), "{svg}");
        assert!(svg.contains("&lt;scrip"), "{svg}");
    }
}
