//! The physical floor for `gotchas build`: write a built site's folders and files into a
//! new folder, on the same number of threads as the build, and nothing else. At 100,000
//! records a site is 200,000 files and 2 GB in 100,000 folders: no build can take less
//! than the kernel takes to create them, and `bench/run.sh` times this beside
//! `gotchas build`, so the build's distance from that is measured in one run.
//!
//! The site is read into memory first, untimed by the process's own clock: what is timed
//! and printed is the writing alone (folders made in order, then every file created and
//! written once, as the build writes each file).
//!
//! ```text
//! cargo run --release --example write_floor -- BUILT_SITE OUT
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [site, out] = args.as_slice() else {
        eprintln!("usage: write_floor BUILT_SITE OUT");
        return ExitCode::from(2);
    };
    let (site, out) = (Path::new(site), Path::new(out));
    if out.exists() {
        eprintln!(
            "write_floor: {} exists; it writes only a new folder",
            out.display()
        );
        return ExitCode::from(2);
    }
    let mut folders = Vec::new();
    let mut paths = Vec::new();
    if let Err(err) = collect(site, Path::new(""), &mut folders, &mut paths) {
        eprintln!("write_floor: cannot read {}: {err}", site.display());
        return ExitCode::from(2);
    }
    let files: Vec<(PathBuf, Vec<u8>)> = match paths
        .into_par_iter()
        .map(|path| std::fs::read(site.join(&path)).map(|bytes| (path, bytes)))
        .collect()
    {
        Ok(files) => files,
        Err(err) => {
            eprintln!("write_floor: cannot read the site: {err}");
            return ExitCode::from(2);
        }
    };
    let bytes: usize = files.iter().map(|(_, bytes)| bytes.len()).sum();
    let started = Instant::now();
    let written = std::fs::create_dir(out)
        .and_then(|()| {
            folders
                .iter()
                .try_for_each(|folder| std::fs::create_dir(out.join(folder)))
        })
        .and_then(|()| {
            files
                .par_iter()
                .try_for_each(|(path, bytes)| std::fs::write(out.join(path), bytes))
        });
    if let Err(err) = written {
        eprintln!("write_floor: cannot write {}: {err}", out.display());
        return ExitCode::from(1);
    }
    println!(
        "wrote {} files ({bytes} bytes) in {} folders in {:.2} s",
        files.len(),
        folders.len(),
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// The folders below `dir` (parents first) and its files, as paths relative to the site.
fn collect(
    site: &Path,
    dir: &Path,
    folders: &mut Vec<PathBuf>,
    files: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    let mut entries = std::fs::read_dir(site.join(dir))?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = dir.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            folders.push(path.clone());
            collect(site, &path, folders, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}
