/* code_ids.c - the build's table of code identities (base/code_id.h):
 * for each variant file named on the command line, a line
 *   { "impl_cuda/meanshift/regions_8_coop.cu", "0123456789abcdef" },
 * for registry.c to include (the Makefile writes it to
 * build/gen/code_ids.inc).  Usage: code_ids ROOT FILE...   */
#include "base/code_id.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: code_ids ROOT FILE...\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        char id[SB_CODE_ID_LEN + 1];
        if (sb_code_id(argv[i], sb_code_id_read_tree, argv[1], id) == 0) {
            fprintf(stderr, "code_ids: cannot read %s/%s\n", argv[1], argv[i]);
            return 1;
        }
        printf("{ \"%s\", \"%s\" },\n", argv[i], id);
    }
    return 0;
}
