//! The page's entry point: mounts the app. Built with Trunk (`cargo xtask run`).

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(web::App);
}
