//! The sample view's CUDA header with its constants generated from [`SAMPLE_KIND`]'s table
//! (`NONE`, `NONE_ENTRY`, `ALL_NEIGHBOURS`, ... become `GLP_SAMPLE_NONE`, ...) and the loop
//! fault base from [`crate::loops`], so nothing the host and the device share is written
//! twice.

use super::spec::SAMPLE_KIND;
use crate::ir::Scalar;
use crate::template::Template;

/// The view header's `CONSTANTS` slot: one `#define GLP_SAMPLE_<NAME>` per constant of the
/// kind, then the loop fault base (its own lines: no final newline).
pub fn view_constants_cuda() -> String {
    let mut lines: Vec<String> = SAMPLE_KIND
        .constants
        .iter()
        .map(|c| {
            let suffix = if c.ty == Scalar::U64 { "ull" } else { "u" };
            format!("#define GLP_SAMPLE_{} 0x{:X}{suffix} // {}", c.name, c.value, c.doc)
        })
        .collect();
    lines.push(format!(
        "#define GLP_SAMPLE_LOOP_SITE {}ull // fault codes from here on name loop sites",
        crate::loops::LOOP_SITE_FAULT
    ));
    lines.join("\n")
}

/// The view header as written, with its slots.
const VIEW_TEMPLATE: Template = Template::new("kinds/sample/view.cuh", include_str!("view.cuh"));

/// The sample view and its intrinsics in CUDA, its constants filled in.
pub fn view_cuda() -> String {
    VIEW_TEMPLATE
        .fill(&[("CONSTANTS", &view_constants_cuda())])
        .unwrap_or_else(|e| panic!("the sample view header's slots are the layout's: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_constant_and_intrinsic_of_the_kind_is_in_the_header() {
        let view = view_cuda();
        assert!(view.contains("#define GLP_SAMPLE_NONE 0xFFFFFFFFu "));
        assert!(view.contains("#define GLP_SAMPLE_NONE_ENTRY 0xFFFFFFFFFFFFFFFFull "));
        assert!(view.contains("#define GLP_SAMPLE_COLLECTIVE 0x1u "));
        assert!(view.contains(&format!("#define GLP_SAMPLE_LOOP_SITE {}ull", crate::loops::LOOP_SITE_FAULT)));
        for method in SAMPLE_KIND.intrinsics {
            let name = format!(" glp_sample_{}(const glp_sample_view& view", method.name);
            assert!(view.contains(&name), "the header lacks `{name}`");
        }
        assert!(view.contains("glp_sample_loop_budget(const glp_sample_view& view)"));
        assert!(view.contains("glp_sample_loop_fault(const glp_sample_view& view"));
        assert!(!view.contains("/*{{"));
    }
}
