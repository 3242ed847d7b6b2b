//! How the tests find what a learner finds: ARIA roles, and WebDriver's
//! computed role and accessible name of an element (which fantoccini has
//! no call for).

use fantoccini::wd::WebDriverCompatibleCommand;

/// The ARIA roles the tests look for, and the elements that may carry each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Button,
    Checkbox,
    Radio,
    SpinButton,
    TextBox,
    ComboBox,
    Region,
}

impl Role {
    /// The role's name as the browser computes it.
    pub(super) fn aria(self) -> &'static str {
        match self {
            Self::Button => "button",
            Self::Checkbox => "checkbox",
            Self::Radio => "radio",
            Self::SpinButton => "spinbutton",
            Self::TextBox => "textbox",
            Self::ComboBox => "combobox",
            Self::Region => "region",
        }
    }

    /// The elements worth asking about (the role is still checked on each).
    pub(super) fn candidates(self) -> &'static str {
        match self {
            Self::Button => "button, [role=button]",
            Self::Checkbox => "input[type=checkbox], [role=checkbox]",
            Self::Radio => "input[type=radio], [role=radio]",
            Self::SpinButton => "input[type=number], [role=spinbutton]",
            Self::TextBox => "input[type=text], textarea, [role=textbox]",
            Self::ComboBox => "select, [role=combobox]",
            Self::Region => "section, [role=region]",
        }
    }
}

/// WebDriver's "Get Computed Role" / "Get Computed Label" of one element.
#[derive(Debug)]
pub(super) struct ComputedAccessibility {
    pub(super) element: String,
    pub(super) property: &'static str,
}

impl WebDriverCompatibleCommand for ComputedAccessibility {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        let session = session_id.unwrap_or_default();
        base_url.join(&format!(
            "session/{session}/element/{}/{}",
            self.element, self.property
        ))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::GET, None)
    }
}
