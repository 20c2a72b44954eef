//! Fewer shared libraries for the dynamic loader to map at every start.
//!
//! A hook is a process of a few milliseconds, and each shared library the
//! loader maps and relocates costs it about 0.13 ms of wall time here
//! (empty C programs: libc alone 0.72 ms, with libm and libgcc_s 0.98).
//! Rust's standard library links two besides libc on GNU/Linux:
//!
//! - libgcc_s, for unwinding (a hook catches its own panics): the same
//!   unwinder is linked in from GCC's static `libgcc_eh.a`. Native
//!   libraries of this crate come before the standard library's on the
//!   linker's command line, so its `-lgcc_s` is then not needed, and
//!   `--as-needed` leaves it out. ONNX Runtime, loaded at run time, still
//!   brings libgcc_s for its own C++ exceptions, which never cross into
//!   Rust frames.
//! - libm, of which only `exp`, `log` and `pow` are used (the tokenizer's
//!   Unigram model, the progress bar's rates): defined here with the `libm`
//!   crate (musl's implementations, within an ulp of glibc's). The program
//!   exports them, so ONNX Runtime's calls, once it is loaded, resolve to
//!   them too: the embeddings of the test and the production-shaped models
//!   came out the same, bit for bit, as with glibc's.
//!
//! The extension, `errkb.so`, keeps the host's libraries: it is loaded
//! into a process that has them already.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[link(name = "gcc_eh", kind = "static")]
extern "C" {}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod libm_functions {
    #[no_mangle]
    extern "C" fn exp(x: f64) -> f64 {
        libm::exp(x)
    }

    #[no_mangle]
    extern "C" fn log(x: f64) -> f64 {
        libm::log(x)
    }

    #[no_mangle]
    extern "C" fn pow(x: f64, y: f64) -> f64 {
        libm::pow(x, y)
    }
}
