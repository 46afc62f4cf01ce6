/* fuzz_file.h - a libFuzzer input written to a file of this process's
 * own, for the readers that take a path (a manifest, a y4m that seeks). */
#ifndef SEGBENCH_FUZZ_FILE_H
#define SEGBENCH_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* The file holding data[0..size), named after kind; NULL when it cannot
 * be written. */
static inline const char *fuzz_input_file(const char *kind, const uint8_t *data, size_t size)
{
    static char path[96];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/segbench-fuzz-%s-%d", kind, (int)getpid());
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return NULL;
    fwrite(data, 1, size, fp);
    fclose(fp);
    return path;
}

#endif
