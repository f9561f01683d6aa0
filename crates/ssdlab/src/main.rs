fn main() {
    std::process::exit(ssdlab::cli::main_with_args(std::env::args().collect()));
}
