//! The `glp` command-line program; see `glp --help`.

fn main() -> std::process::ExitCode {
    glp::cli::main()
}
