# The toolchain of the release build (scripts/build.sh), which scripts/setup.sh installs:
# a pinned nightly, for `-Zbuild-std` (std rebuilt with the release profile, `opt-level = "z"`
# and LTO; for the page's module with std's `optimize_for_size` feature too) and
# `-Zlocation-detail=none` (a panic's message without its file and line): the page's module
# 342,179 -> 317,106 bytes gzip, the books module 319,655 -> 295,224 (docs/figures.md, "Package size").
# The tests compile on stable; the JS tests run the package this toolchain built.
RELEASE_TOOLCHAIN=nightly-2026-10-30
