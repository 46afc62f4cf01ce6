/* files.c - whole files and paths (see files.h). */
#define _XOPEN_SOURCE 700           /* nftw */
#include "base/files.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

sb_status sb_path(char *out, sb_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, SB_PATH_MAX, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= SB_PATH_MAX)
        return sb_fail(err, SB_ERR_LIMIT, "a path longer than %d characters: '%.60s...'", SB_PATH_MAX - 1, out);
    return SB_OK;
}

sb_status sb_dir_arg(const char *dir, const char *what, sb_error *err)
{
    size_t len = strlen(dir);
    if (len + SB_NAME_ROOM >= SB_PATH_MAX)
        return sb_fail(err, SB_ERR_LIMIT, "%s: a folder of %zu characters leaves no room for the files in it "
                       "(at most %d)", what, len, SB_PATH_MAX - SB_NAME_ROOM - 1);
    return SB_OK;
}

sb_status sb_file_read(const char *path, size_t max_bytes, char **text, size_t *len, sb_error *err)
{
    *text = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: %s", path, strerror(errno));
    long size = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
    if (size < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return sb_fail(err, SB_ERR_IO, "%s: cannot read (not a regular file?)", path);
    }
    if ((unsigned long)size > max_bytes) {
        fclose(fp);
        return sb_fail(err, SB_ERR_LIMIT, "%s: %ld bytes, more than the %zu this file may have", path, size,
                       max_bytes);
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf) {
        fclose(fp);
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for %ld bytes", path, size);
    }
    size_t got = fread(buf, 1, (size_t)size, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return sb_fail(err, SB_ERR_IO, "%s: read error", path);
    }
    buf[got] = '\0';
    *text = buf;
    if (len)
        *len = got;
    return SB_OK;
}

char *sb_read_text(const char *path)
{
    char *text;
    sb_error ignored;
    return sb_file_read(path, SIZE_MAX - 1, &text, NULL, &ignored) == SB_OK ? text : NULL;
}

static int remove_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return (type == FTW_DP ? rmdir(path) : unlink(path)) == 0 || errno == ENOENT ? 0 : -1;
}

sb_status sb_remove_tree(const char *path, sb_error *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT ? SB_OK : sb_fail(err, SB_ERR_IO, "%s: %s", path, strerror(errno));
    if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return sb_fail(err, SB_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    return SB_OK;
}
