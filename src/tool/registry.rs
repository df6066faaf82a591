//! The tools a Lectern instance knows.

use std::cell::RefCell;
use std::rc::Rc;

use super::schema::check_parameters_schema;
use super::Tool;
use crate::domain::SortedMap;
use crate::domain::ToolDefinition;
use crate::error::{Error, Result};

/// Registered tools by name. Registering a name again replaces the tool,
/// except a built-in one, which a host tool may not replace.
#[derive(Default)]
pub struct ToolRegistry {
    tools: RefCell<SortedMap<String, Rc<dyn Tool>>>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a tool after checking its name and parameters schema.
    pub fn register(&self, tool: Rc<dyn Tool>) -> Result<()> {
        let definition = tool.definition();
        let name = &definition.name;
        let valid_name = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid_name {
            return Err(Error::config(format!(
                "tool name {name:?} must be 1-64 characters of a-z, A-Z, 0-9, _ or -"
            )));
        }
        if name == crate::domain::RESPONSE_TOOL {
            return Err(Error::config(format!(
                "tool name {name} is reserved for structured output (responseSchema)"
            )));
        }
        check_parameters_schema(&definition.parameters)
            .map_err(|e| Error::config(format!("tool {name}: parameters {e}")))?;
        if !tool.builtin() && self.get(name).is_some_and(|t| t.builtin()) {
            return Err(Error::config(format!(
                "tool {name} is a built-in tool (builtinTools); give yours another name"
            )));
        }
        self.tools.borrow_mut().insert(name.clone(), tool);
        Ok(())
    }

    /// A registry of the same tools as now, apart from this one from here on.
    pub fn snapshot(&self) -> ToolRegistry {
        ToolRegistry {
            tools: RefCell::new(self.tools.borrow().clone()),
        }
    }

    /// Removes a tool; whether it was there.
    pub fn unregister(&self, name: &str) -> bool {
        self.tools.borrow_mut().remove(name).is_some()
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<Rc<dyn Tool>> {
        self.tools.borrow().get(name).cloned()
    }

    /// Whether a tool called `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.borrow().contains_key(name)
    }

    /// Names of every registered tool.
    pub fn names(&self) -> Vec<String> {
        self.tools.borrow().keys().cloned().collect()
    }

    /// Definitions of the registered tools that `allowed` lets through, by name.
    pub fn definitions(&self, allowed: impl Fn(&str) -> bool) -> Vec<ToolDefinition> {
        self.tools
            .borrow()
            .values()
            .filter(|t| allowed(&t.definition().name))
            .map(|t| t.definition().clone())
            .collect()
    }
}
