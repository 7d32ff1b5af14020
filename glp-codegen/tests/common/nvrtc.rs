//! NVRTC, loaded the way the runtime loads it (no GPU needed), and the check that the
//! differential programs, emitted as CUDA, compile without a warning (the interpreter runs
//! the IR; this checks the other back end accepts the same IR).

use std::ffi::{c_char, c_int, c_void, CStr, CString};

#[link(name = "dl")]
extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_NOW: c_int = 2;

type Program = *mut c_void;
type Create = unsafe extern "C" fn(
    *mut Program,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type Compile = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
type LogSize = unsafe extern "C" fn(Program, *mut usize) -> c_int;
type Log = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
type Destroy = unsafe extern "C" fn(*mut Program) -> c_int;

pub struct Nvrtc {
    create: Create,
    compile: Compile,
    log_size: LogSize,
    log: Log,
    destroy: Destroy,
}

impl Nvrtc {
    pub fn load() -> Option<Nvrtc> {
        for name in ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"] {
            let name = CString::new(name).unwrap();
            // SAFETY: dlopen takes a NUL-terminated name; a null handle means "not found".
            let handle = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
            if handle.is_null() {
                continue;
            }
            let symbol = |s: &CStr| {
                // SAFETY: the handle is live (never closed); the name is NUL-terminated.
                let p = unsafe { dlsym(handle, s.as_ptr()) };
                assert!(!p.is_null(), "NVRTC lacks {s:?}");
                p
            };
            // SAFETY: the symbols are NVRTC's C functions with these signatures
            // (nvrtc.h); `nvrtcProgram` is an opaque pointer, `nvrtcResult` an int.
            unsafe {
                return Some(Nvrtc {
                    create: std::mem::transmute::<*mut c_void, Create>(symbol(c"nvrtcCreateProgram")),
                    compile: std::mem::transmute::<*mut c_void, Compile>(symbol(c"nvrtcCompileProgram")),
                    log_size: std::mem::transmute::<*mut c_void, LogSize>(symbol(c"nvrtcGetProgramLogSize")),
                    log: std::mem::transmute::<*mut c_void, Log>(symbol(c"nvrtcGetProgramLog")),
                    destroy: std::mem::transmute::<*mut c_void, Destroy>(symbol(c"nvrtcDestroyProgram")),
                });
            }
        }
        None
    }

    /// Compiles `source` for sm_80 with the runtime's options; the log, or the log of
    /// the failure.
    pub fn compile(&self, name: &str, source: &str) -> Result<String, String> {
        let (src, name) = (CString::new(source).unwrap(), CString::new(name).unwrap());
        let options: Vec<CString> = ["--fmad=false", "--std=c++17", "--gpu-architecture=sm_80"]
            .iter()
            .map(|o| CString::new(*o).unwrap())
            .collect();
        let pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let mut program: Program = std::ptr::null_mut();
        // SAFETY: every pointer is to a live NUL-terminated string or array of them, the
        // program handle is created before use and destroyed once; the log buffer has
        // the size NVRTC reports.
        unsafe {
            let created =
                (self.create)(&mut program, src.as_ptr(), name.as_ptr(), 0, std::ptr::null(), std::ptr::null());
            assert_eq!(created, 0, "nvrtcCreateProgram failed");
            let result = (self.compile)(program, pointers.len() as c_int, pointers.as_ptr());
            let mut size = 0usize;
            (self.log_size)(program, &mut size);
            let mut log = vec![0u8; size.max(1)];
            (self.log)(program, log.as_mut_ptr().cast());
            (self.destroy)(&mut program);
            let log = String::from_utf8_lossy(&log).trim_end_matches('\0').trim().to_string();
            if result == 0 {
                Ok(log)
            } else {
                Err(log)
            }
        }
    }
}

/// The test kind's context in CUDA: what the emitted intrinsic calls need to compile.
pub const TEST_VIEW_CUDA: &str = r#"
struct t_view { glp_u32 calls; };
__device__ __forceinline__ bool t_probe(const t_view& v, glp_i32 x) { return x > 0; }
__device__ __forceinline__ glp_u32 t_calls(const t_view& v) { return v.calls; }
__device__ __forceinline__ glp_u32 t_label(const t_view& v, glp_u32 u) { return u * 7u % 13u; }
__device__ __forceinline__ glp_i64 t_check(const t_view& v, glp_i64 x) { return x; }
"#;

/// Asserts that every `(name, source)` program of the test kind, emitted as CUDA, compiles
/// with NVRTC without a warning. Skips without NVRTC unless `GLP_REQUIRE_NVRTC=1`; `test`
/// names the calling test in the skip notice.
pub fn assert_programs_compile(test: &str, sources: &[(&str, &str)]) {
    let Some(nvrtc) = Nvrtc::load() else {
        let why = "NVRTC cannot be loaded (install it, or add its lib folder to LD_LIBRARY_PATH)";
        glp_testkit::switch::skip(test, glp_testkit::switch::Need::Nvrtc, why);
        return;
    };
    for &(name, source) in sources {
        let program = super::compile(&super::TEST_KIND, source, &[("k", "i32"), ("w", "u64"), ("x", "f64")]);
        let functions = glp_codegen::cuda::emit_program(&super::TEST_KIND, &program);
        let unit = format!("{}\n{TEST_VIEW_CUDA}\n{functions}", glp_codegen::cuda::PRELUDE);
        let numbered: String = unit.lines().enumerate().map(|(i, l)| format!("{:>5} | {l}\n", i + 1)).collect();
        match nvrtc.compile(&format!("{name}.cu"), &unit) {
            Ok(log) => {
                // `f32::MAX * 2.0` in `float_literals` overflows on purpose (#222).
                let warnings: Vec<&str> =
                    log.lines().filter(|l| l.contains(": warning") && !l.contains("#222-D")).collect();
                assert!(warnings.is_empty(), "{name}: NVRTC warns:\n{log}\n{numbered}");
            }
            Err(log) => panic!("{name}: NVRTC rejects the emitted CUDA:\n{log}\n{numbered}"),
        }
    }
}
