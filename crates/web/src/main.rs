//! The page's entry point: mounts the app for the address it was opened at. Built with Trunk (`cargo xtask run`).

fn main() {
    console_error_panic_hook::set_once();
    web::start();
}
