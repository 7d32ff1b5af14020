//! Kernel templates: `.cu` text with named slots `/*{{NAME}}*/` that generated code fills.
//!
//! Filling is strict: a slot the template has but the caller does not fill, a value for a
//! slot the template does not have, and a slot that appears twice are all errors, so a
//! template and its caller cannot drift apart silently.

use std::collections::BTreeMap;
use std::fmt;

/// A template with its slots.
#[derive(Debug, Clone)]
pub struct Template {
    name: &'static str,
    text: &'static str,
}

/// A mismatch between a template's slots and the values given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    Missing { template: &'static str, slot: String },
    Unknown { template: &'static str, slot: String },
    Duplicate { template: &'static str, slot: String },
    Unterminated { template: &'static str },
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::Missing { template, slot } => write!(f, "template {template}: slot {slot} is not filled"),
            TemplateError::Unknown { template, slot } => write!(f, "template {template} has no slot {slot}"),
            TemplateError::Duplicate { template, slot } => write!(f, "template {template}: slot {slot} appears twice"),
            TemplateError::Unterminated { template } => write!(f, "template {template}: unterminated slot marker"),
        }
    }
}

impl std::error::Error for TemplateError {}

const OPEN: &str = "/*{{";
const CLOSE: &str = "}}*/";

impl Template {
    pub const fn new(name: &'static str, text: &'static str) -> Self {
        Template { name, text }
    }

    /// The slot names, in order of appearance.
    pub fn slots(&self) -> Result<Vec<&'static str>, TemplateError> {
        let mut slots = Vec::new();
        let mut rest = self.text;
        while let Some(start) = rest.find(OPEN) {
            let after = &rest[start + OPEN.len()..];
            let end = after.find(CLOSE).ok_or(TemplateError::Unterminated { template: self.name })?;
            let slot = &after[..end];
            if slots.contains(&slot) {
                return Err(TemplateError::Duplicate { template: self.name, slot: slot.to_string() });
            }
            slots.push(slot);
            rest = &after[end + CLOSE.len()..];
        }
        Ok(slots)
    }

    /// The template with every slot replaced by its value.
    pub fn fill(&self, values: &[(&str, &str)]) -> Result<String, TemplateError> {
        let slots = self.slots()?;
        let mut given: BTreeMap<&str, &str> = BTreeMap::new();
        for (slot, value) in values {
            if !slots.contains(slot) {
                return Err(TemplateError::Unknown { template: self.name, slot: slot.to_string() });
            }
            if given.insert(slot, value).is_some() {
                return Err(TemplateError::Duplicate { template: self.name, slot: slot.to_string() });
            }
        }
        let mut out = String::with_capacity(self.text.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
        let mut rest = self.text;
        for slot in slots {
            let marker = format!("{OPEN}{slot}{CLOSE}");
            let at = rest.find(&marker).ok_or(TemplateError::Unterminated { template: self.name })?;
            let value =
                given.get(slot).ok_or(TemplateError::Missing { template: self.name, slot: slot.to_string() })?;
            out.push_str(&rest[..at]);
            out.push_str(value);
            rest = &rest[at + marker.len()..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Template = Template::new("t.cu", "a /*{{X}}*/ b /*{{Y}}*/ c");

    #[test]
    fn fills_every_slot_in_place() {
        assert_eq!(T.slots().unwrap(), vec!["X", "Y"]);
        assert_eq!(T.fill(&[("Y", "2"), ("X", "1")]).unwrap(), "a 1 b 2 c");
    }

    #[test]
    fn missing_unknown_duplicate_and_unterminated_slots_are_errors() {
        assert_eq!(T.fill(&[("X", "1")]), Err(TemplateError::Missing { template: "t.cu", slot: "Y".into() }));
        assert_eq!(
            T.fill(&[("X", "1"), ("Y", "2"), ("Z", "3")]),
            Err(TemplateError::Unknown { template: "t.cu", slot: "Z".into() })
        );
        assert_eq!(
            T.fill(&[("X", "1"), ("X", "1"), ("Y", "2")]),
            Err(TemplateError::Duplicate { template: "t.cu", slot: "X".into() })
        );
        let twice = Template::new("d.cu", "/*{{X}}*/ /*{{X}}*/");
        assert!(matches!(twice.slots(), Err(TemplateError::Duplicate { .. })));
        let open = Template::new("o.cu", "/*{{X");
        assert_eq!(open.slots(), Err(TemplateError::Unterminated { template: "o.cu" }));
    }
}
