/* tests/pages/provenance.c - every results file says where it came from:
 * peers.csv's rows carry their run, commit, machine and date, and the
 * report says them, or -- a file of before those columns -- that it was
 * written before them; REPORT.md names the tree a binary ran in where it
 * was another commit or had changes. */
#include "cli_util.h"
#include "test_groups.h"

#include <stdio.h>
#include <string.h>

static void test_peers_and_tree(void)
{
    const char *png = test_grey_png("prov.png", 40, 30, 3);
    char results[700], report[700], path[800];
    snprintf(results, sizeof results, "%s", test_path("prov-results"));
    snprintf(report, sizeof report, "%s", test_path("prov-report"));
    cli_result *r = cli("bench --image %s --algo integral --variant cpu --budget 2 --quiet --repeat off --results %s",
                        png, test_shq(results));
    CHECKF(r->code == 0, "%s", r->err);
    snprintf(path, sizeof path, "%s/peers.csv", results);
    FILE *fp = fopen(path, "w");                              /* as make peers wrote it before its provenance */
    if (fp) {
        fprintf(fp, "algo,stage,peer,device,image,width,height,n,median_ms,p25_ms,p75_ms,note\n"
                    "integral,sum,cv2.integral,cpu,prov,40,30,5,0.0004,0.0004,0.0004,a peer\n");
        fclose(fp);
    }
    /* the tree the binary ran in: another commit with changes */
    test_sh("cd %s && sed 's/\"date\":/\"tree_commit\": \"0123456789abcdef0123456789abcdef01234567-dirty\", \"date\":/' "
            "env.json > t && mv t env.json", test_shq(results));
    r = cli("report --results %s --out %s", test_shq(results), test_shq(report));
    static char md[1 << 17];
    snprintf(path, sizeof path, "%s/REPORT.md", report);
    test_slurp(path, md, sizeof md);
    CHECKF(r->code == 0 && strstr(md, "Written before peers.csv recorded its run, commit and date: where it came "
                                      "from is not known") &&
               strstr(md, ", run in a tree at 0123456789ab with local changes"),
           "%s%.3000s", r->err, md);
    snprintf(path, sizeof path, "%s/peers.csv", results);
    fp = fopen(path, "w");                                    /* as make peers writes it now */
    if (fp) {
        fprintf(fp, "algo,stage,peer,device,image,width,height,n,median_ms,p25_ms,p75_ms,note,run_id,commit,machine,"
                    "date\nintegral,sum,cv2.integral,cpu,prov,40,30,5,0.0004,0.0004,0.0004,a peer,"
                    "peers-20261129T101010Z,feedfacefeedfacefeedfacefeedfacefeedface,nvidia-h200,2026-11-29T10:10:10Z\n");
        fclose(fp);
    }
    r = cli("report --results %s --out %s", test_shq(results), test_shq(report));
    snprintf(path, sizeof path, "%s/REPORT.md", report);
    test_slurp(path, md, sizeof md);
    CHECKF(r->code == 0 && strstr(md, "Measured by run `peers-20261129T101010Z` of `make peers` on nvidia-h200, "
                                      "2026-11-29, at commit feedfacefeed.") &&
               strstr(md, "| integral | sum | prov | cv2.integral | cpu | 0.0004 |"),
           "%s%.3000s", r->err, md);
}

const sb_test tests_provenance[] = {
    { "provenance: peers.csv's rows say their run, commit, machine and date, and the report says them (or that a "
      "file predates them); REPORT.md names the tree a binary ran in",
      test_peers_and_tree },
};
const int tests_provenance_count = sizeof tests_provenance / sizeof tests_provenance[0];
