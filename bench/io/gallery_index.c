/* gallery_index.c - the gallery's index.tsv (see gallery_index.h). */
#include "io/gallery_index.h"

#include "base/files.h"

#include "machine/env.h"

#include "segbench/atomic_file.h"

#include <stdlib.h>
#include <string.h>

static const char HEADER[] = "algo\timage\tfile\tcaption\n";

sb_status sb_gallery_index_open(sb_gallery_index *gi, const char *path, sb_error *err)
{
    memset(gi, 0, sizeof *gi);
    snprintf(gi->path, sizeof gi->path, "%s", path);
    char *text = sb_read_text(path);
    if (text) {
        const char *body = strncmp(text, HEADER, strlen(HEADER)) == 0 ? text + strlen(HEADER) : "";
        gi->old_text = strdup(body);
        free(text);
    }
    gi->fresh = open_memstream(&gi->fresh_text, &gi->fresh_len);
    gi->redone = open_memstream(&gi->redone_text, &gi->redone_len);
    if (!gi->fresh || !gi->redone || (text && !gi->old_text)) {
        sb_gallery_index_close(gi);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for the gallery index");
    }
    fputc('\n', gi->redone);
    return SB_OK;
}

void sb_gallery_index_drop_algo(sb_gallery_index *gi, const char *algo)
{
    fprintf(gi->redone, "%s\t*\n", algo);
}

FILE *sb_gallery_index_redo(sb_gallery_index *gi, const char *algo, const char *image)
{
    fprintf(gi->redone, "%s\t%s\n", algo, image);
    return gi->fresh;
}

/* Was the entry on this line ("algo\timage\t...") redone by this run? */
static int redone(sb_gallery_index *gi, const char *line)
{
    const char *tab = strchr(line, '\t');
    const char *tab2 = tab ? strchr(tab + 1, '\t') : NULL;
    if (!tab2)
        return 1;                                 /* malformed: drop it */
    char key[512], all[512];
    snprintf(key, sizeof key, "\n%.*s\n", (int)(tab2 - line), line);
    snprintf(all, sizeof all, "\n%.*s*\n", (int)(tab - line) + 1, line);
    fflush(gi->redone);
    return strstr(gi->redone_text, key) != NULL || strstr(gi->redone_text, all) != NULL;
}

sb_status sb_gallery_index_write(sb_gallery_index *gi, sb_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory for the gallery index");
    fputs(HEADER, out);
    for (const char *line = gi->old_text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        if (!redone(gi, line))
            fwrite(line, 1, n, out);
        line += n;
    }
    fflush(gi->fresh);
    fwrite(gi->fresh_text, 1, gi->fresh_len, out);
    fclose(out);
    sb_status st = sb_atomic_write_text(gi->path, text, err);
    free(text);
    return st;
}

void sb_gallery_index_close(sb_gallery_index *gi)
{
    if (gi->fresh)
        fclose(gi->fresh);
    if (gi->redone)
        fclose(gi->redone);
    free(gi->fresh_text);
    free(gi->redone_text);
    free(gi->old_text);
    memset(gi, 0, sizeof *gi);
}
