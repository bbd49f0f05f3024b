#include "cfuzzdriver.h"

// Declared weak so that an ordinary build (no -sanitize=fuzzer, so no libFuzzer runtime)
// still links; the symbol is then NULL and cfd_run_driver reports that instead of crashing.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv,
                               int (*callback)(const uint8_t *data, size_t size)) __attribute__((weak));

int cfd_fuzzer_linked(void) { return LLVMFuzzerRunDriver != NULL; }

int cfd_run_driver(int *argc, char ***argv, cfd_test_one_input callback) {
    if (LLVMFuzzerRunDriver == NULL) return -1;
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
