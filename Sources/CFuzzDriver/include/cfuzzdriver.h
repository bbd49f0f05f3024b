#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// The per-input callback libFuzzer calls; returns 0 (other values are reserved by libFuzzer).
typedef int (*cfd_test_one_input)(const uint8_t *data, size_t size);

/// 1 when the binary was linked with libFuzzer (built with -sanitize=fuzzer), else 0.
int cfd_fuzzer_linked(void);

/// Runs libFuzzer's driver with `argc`/`argv` (libFuzzer flags and corpus directories) and
/// `callback`; returns the driver's exit code, or -1 when libFuzzer is not linked.
int cfd_run_driver(int *argc, char ***argv, cfd_test_one_input callback);

#endif
