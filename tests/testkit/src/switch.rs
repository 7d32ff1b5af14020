//! Skip or fail: the rule of tests that need something the machine may lack.

/// Something a test may need that a machine may lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// A CUDA GPU (`GLP_REQUIRE_GPU=1` makes its absence a failure).
    Gpu,
    /// The NVRTC library, to compile CUDA without a GPU (`GLP_REQUIRE_NVRTC=1`).
    Nvrtc,
    /// A data file outside the repository, in `GLP_DATA_DIR` (`GLP_REQUIRE_DATA=1`).
    Data,
    /// Python 3 with NumPy, to read glp's `.npy` / `.npz` outputs back (`GLP_REQUIRE_NUMPY=1`).
    Numpy,
}

impl Need {
    /// The environment variable that turns the skip into a failure.
    pub fn variable(self) -> &'static str {
        match self {
            Need::Gpu => "GLP_REQUIRE_GPU",
            Need::Nvrtc => "GLP_REQUIRE_NVRTC",
            Need::Data => "GLP_REQUIRE_DATA",
            Need::Numpy => "GLP_REQUIRE_NUMPY",
        }
    }

    /// Whether the environment requires it (its variable is `1`).
    pub fn required(self) -> bool {
        std::env::var(self.variable()).is_ok_and(|v| v == "1")
    }
}

/// Reports that `test` lacks `need` for the reason `why`: a skip message on standard error,
/// or, when the environment requires it, a panic that fails the test. The caller then
/// returns from the test.
pub fn skip(test: &str, need: Need, why: &str) {
    let variable = need.variable();
    assert!(!need.required(), "{test}: {variable}=1, but {why}");
    eprintln!("{test}: skipped, {why} (set {variable}=1 to fail instead)");
}
