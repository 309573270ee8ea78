//! Writes the model target's seeds (`harness::model_seeds`, synthetic nets: no net is kept in
//! the repository) into the folder named by the one argument; `fuzz/run.sh model` runs it.

#[path = "../../../tests/fuzz/harness.rs"]
#[allow(dead_code)]
mod harness;

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .ok_or_else(|| std::io::Error::other("usage: model_seeds DIR"))?;
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir)?;
    for (name, bytes) in harness::model_seeds() {
        std::fs::write(dir.join(name), bytes)?;
    }
    Ok(())
}
