//! The teacher's setting, shared by every lab service that lets a teacher
//! read a room's labs.

use crate::access::TeacherToken;

/// Who may read every lab: the room's teacher.
#[derive(Clone, Default, clap::Args)]
pub struct TeacherArgs {
    /// The teacher's token, which reads every lab and changes none: 16 or
    /// more letters, digits, '-' or '_'. Without it, a new one is made and
    /// printed at start-up
    #[arg(long, env = "LAB_TEACHER_TOKEN", value_parser = valid_teacher_token)]
    pub teacher_token: Option<String>,
}

impl TeacherArgs {
    /// The token requests are checked against, and whether it was made
    /// here (then its text is to be shown to the teacher).
    pub fn token(&self) -> (TeacherToken, Option<String>) {
        match &self.teacher_token {
            Some(text) => (
                TeacherToken::new(text).expect("clap checked the token"),
                None,
            ),
            None => {
                let (token, text) = TeacherToken::generate();
                (token, Some(text))
            }
        }
    }
}

/// The token is a password: settings printed for debugging do not show it.
impl std::fmt::Debug for TeacherArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let given = self.teacher_token.as_ref().map(|_| "given");
        f.debug_struct("TeacherArgs")
            .field("teacher_token", &given)
            .finish()
    }
}

fn valid_teacher_token(text: &str) -> Result<String, String> {
    TeacherToken::new(text)
        .map(|_| text.to_owned())
        .ok_or_else(|| {
            format!(
                "a teacher token is {} to 128 letters, digits, '-' or '_'",
                TeacherToken::MIN_LEN
            )
        })
}
