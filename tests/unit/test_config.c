/*
 * test_config.c - the configuration module (ini/config/config.c).
 *
 * What is checked:
^ *   - the shipped files in conf/ load, with the values they spell out;
 *   - a minimal file gets every default of config.h, the derived MACs and
 *     the block static mapping; PE lists come out sorted while static
 *     follows the file order of pes; @include is relative to the file;
 *   - every kind of invalid file is rejected with exactly one line whose
 *     prefix is "FILE:LINE: FIELD:" (file, line and field asserted exactly)
 *     and whose message says what is wrong; the caller's struct is left
 *     untouched;
 *   - the generator: the thesis's 16-node family (clusters of 1, 2, 4, 8
 *     compute nodes with 1, 2, 4, 8 INIs each) and the largest machine
 *     generate and reload with the right counts and a valid block mapping;
 *     out-of-range arguments are refused with a message;
 *   - the name and parse helpers.
 *
 * Run from the repository root (conf/ is found relative to it); temporary
 * files go to a mkdtemp directory removed at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "eal_args.h"
#include "stack_defaults.h"
#include "tools/cluster/cluster_gen.h"

static char tmp_dir[] = "/tmp/test_config.XXXXXX";

/* Writes TEXT to tmp_dir/NAME and returns the path (static buffer). */
static const char *write_file(const char *name, const char *text)
{
    static char path[INI_PATH_LEN];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    return path;
}

static int setup(void **state)
{
    return mkdtemp(tmp_dir) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int teardown(void **state)
{
    return nftw(tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static uint32_t ip_of(const char *text)
{
    struct in_addr addr;
    assert_int_equal(inet_pton(AF_INET, text, &addr), 1);
    return addr.s_addr;
}

/* The RFC 2544 benchmark range every file of the project uses. */
static int in_benchmark_range(uint32_t ip)
{
    return (ntohl(ip) & 0xFFFE0000u) == 0xC6120000u;
}

static void assert_mac(const uint8_t mac[6], uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3,
                       uint8_t b4, uint8_t b5)
{
    const uint8_t want[6] = { b0, b1, b2, b3, b4, b5 };
    assert_memory_equal(mac, want, 6);
}

/* Invariants every loaded configuration must satisfy, whatever the file. */
static void assert_consistent(const struct ini_config *cfg)
{
    int pes_seen = 0, inis_seen = 0;
    for (int c = 0; c < cfg->n_clusters; c++) {
        const struct ini_cluster_cfg *cl = &cfg->clusters[c];
        assert_int_equal(cl->id, c);
        for (int i = 0; i < cl->n_pes; i++) {
            const struct ini_pe_cfg *pe = &cfg->pes[cl->pes[i]];
            if (i > 0)
                assert_true(cl->pes[i - 1] < cl->pes[i]);
            assert_int_equal(pe->id, cl->pes[i]);
            assert_int_equal(pe->cluster, c);
            assert_int_equal(pe->local, i);
            assert_in_range(pe->static_ini, 0, cfg->n_inis - 1);
            assert_int_equal(cfg->inis[pe->static_ini].cluster, c);
            pes_seen++;
        }
        for (int k = 0; k < cl->n_inis; k++) {
            const struct ini_node_cfg *ini = &cfg->inis[cl->inis[k]];
            assert_int_equal(ini->id, cl->inis[k]);
            assert_int_equal(ini->cluster, c);
            assert_int_equal(ini->index, k);
            inis_seen++;
        }
    }
    assert_int_equal(pes_seen, cfg->n_pes);
    assert_int_equal(inis_seen, cfg->n_inis);
    for (int a = 0; a < cfg->n_inis; a++)
        for (int b = a + 1; b < cfg->n_inis; b++) {
            assert_int_not_equal(cfg->inis[a].ip, cfg->inis[b].ip);
            assert_memory_not_equal(cfg->inis[a].mac, cfg->inis[b].mac, 6);
        }
}

static struct ini_config *load_ok(const char *path)
{
    static struct ini_config cfg;
    char err[512] = "";
    int rc = ini_config_load(path, &cfg, err, sizeof err);
    if (rc != 0)
        print_error("%s: unexpected error: %s\n", path, err);
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    assert_string_equal(cfg.path, path);
    assert_consistent(&cfg);
    return &cfg;
}

/* ---- the shipped files ------------------------------------------------- */

/* Loads a shipped file and asserts its mode and counts. */
static const struct ini_config *load_shipped(const char *path, enum ini_net_mode mode, int n_clusters,
                                             int n_pes, int n_inis)
{
    const struct ini_config *cfg = load_ok(path);
    assert_int_equal(cfg->net_mode, mode);
    assert_int_equal(cfg->n_clusters, n_clusters);
    assert_int_equal(cfg->n_pes, n_pes);
    assert_int_equal(cfg->n_inis, n_inis);
    return cfg;
}

static void test_conf_default(void **state)
{
    const struct ini_config *cfg = load_shipped("conf/default.cfg", INI_NET_MEMIF, 2, 4, 2);
    assert_string_equal(cfg->bridge, "inibr0");
    assert_int_equal(cfg->port, INI_PORT_AUTO);
    assert_int_equal(cfg->clusters[1].pes[0], 2);
    assert_int_equal(cfg->pes[3].static_ini, 1);
    assert_int_equal(cfg->inis[0].ip, ip_of("198.18.0.1"));
    assert_int_equal(cfg->inis[1].ip, ip_of("198.18.0.2"));
    assert_mac(cfg->inis[1].mac, 0x02, 0x00, 0xc6, 0x12, 0x00, 0x01);
    assert_int_equal(cfg->stack.max_message, 65000);
    assert_int_equal(cfg->n_eal_args, 0);
    /* memif: links only the run's owner reaches, no MAC by default */
    assert_int_equal(cfg->security.mac, INI_MAC_AUTO);
    assert_false(ini_config_mac_on(cfg));
}

static void test_conf_af_packet(void **state)
{
    const struct ini_config *cfg = load_shipped("conf/af_packet.cfg", INI_NET_AF_PACKET, 2, 4, 2);
    assert_string_equal(cfg->bridge, "inibr0");
    assert_mac(cfg->inis[0].mac, 0x02, 0x00, 0xc6, 0x12, 0x00, 0x00);
    /* a LAN: the MAC by default, under the launcher's run key */
    assert_true(ini_config_mac_on(cfg));
    assert_string_equal(cfg->security.key_file, "");
}

static void test_conf_4x2(void **state)
{
    const struct ini_config *cfg = load_shipped("conf/4x2.cfg", INI_NET_MEMIF, 4, 8, 8);
    for (int c = 0; c < 4; c++) {
        assert_int_equal(cfg->clusters[c].n_pes, 2);
        assert_int_equal(cfg->clusters[c].n_inis, 2);
    }
}

static void test_conf_files_use_benchmark_range(void **state)
{
    const char *files[] = { "conf/default.cfg", "conf/af_packet.cfg", "conf/4x2.cfg" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        const struct ini_config *cfg = load_ok(files[f]);
        for (int i = 0; i < cfg->n_inis; i++)
            assert_true(in_benchmark_range(cfg->inis[i].ip));
    }
}

/* ---- defaults and derived values --------------------------------------- */

/* The integer and enum fields of the top-level groups, each with the
 * default a file that leaves it out gets (test_defaults' minimal.cfg) and
 * the value test_every_field's full.cfg sets: one row a field, so a field
 * added to config.h is added here once, for both tests.  stack.segmentation
 * is asserted by each test: its default is the stack's, ini_swp_defaults(). */
enum scalar_column { SCALAR_DEFAULT, SCALAR_FULL };

struct scalar_field {
    const char *name;
    size_t offset;          /* of an int (or an int-sized enum) in struct ini_config */
    int value[2];           /* indexed by enum scalar_column */
};

#define FIELD(member) #member, offsetof(struct ini_config, member)

static const struct scalar_field scalar_fields[] = {
    { FIELD(net_mode),              { INI_NET_MEMIF, INI_NET_PCI } },
    { FIELD(pe_policy),             { INI_POLICY_STATIC, INI_POLICY_ROUND_ROBIN } },
    { FIELD(ini_policy),            { INI_POLICY_STATIC, INI_POLICY_LOAD_AWARE } },
    { FIELD(stack.mtu),             { 1500, 9000 } },
    { FIELD(stack.window),          { 64, 128 } },
    { FIELD(stack.seq_bits),        { 32, 8 } },
    { FIELD(stack.send_timeout_us), { 2000, 10000000 } },
    { FIELD(stack.ack_timeout_us),  { 200, 1 } },
    { FIELD(stack.max_message),     { 65000, 1 } },
    { FIELD(stack.nak),             { 1, 0 } },
    { FIELD(idle.mode),             { INI_IDLE_AUTO, INI_IDLE_ADAPTIVE } },
    { FIELD(idle.spin_us),          { 5, 0 } },
    { FIELD(idle.max_sleep_us),     { 1000, 1000000 } },
    { FIELD(idle.yield_us),         { INI_IDLE_YIELD_US_DEFAULT, 1000000 } },
    { FIELD(idle.colocate),         { INI_IDLE_COLOCATE_DEFAULT, 0 } },
    { FIELD(trace.mode),            { INI_TRACE_OFF, INI_TRACE_DETAILED } },
    { FIELD(trace.records),         { 1048576, 1 << 26 } },
    { FIELD(eal_memory_mb),         { 256, 16384 } },
    { FIELD(restart.max),           { INI_RESTART_MAX_DEFAULT, 100 } },
    { FIELD(restart.window_s),      { INI_RESTART_WINDOW_S_DEFAULT, 86400 } },
    { FIELD(n_eal_args),            { 0, 2 } },
    { FIELD(ring_bytes),            { INI_RING_BYTES_DEFAULT, 1 << 30 } },
};

_Static_assert(sizeof(enum ini_net_mode) == sizeof(int) && sizeof(enum ini_policy) == sizeof(int) &&
               sizeof(enum ini_idle_mode) == sizeof(int) && sizeof(enum ini_trace_mode) == sizeof(int),
               "scalar_fields reads the enums as int");

/* Asserts every row of scalar_fields against cfg, naming the field that differs. */
static void assert_scalar_fields(const struct ini_config *cfg, enum scalar_column column)
{
    for (size_t i = 0; i < sizeof scalar_fields / sizeof scalar_fields[0]; i++) {
        const struct scalar_field *f = &scalar_fields[i];
        int got;
        memcpy(&got, (const char *)cfg + f->offset, sizeof got);
        if (got != f->value[column])
            fail_msg("%s: %d, expected %d", f->name, got, f->value[column]);
    }
}

static void test_defaults(void **state)
{
    const char *path = write_file("minimal.cfg",
        "version = 1;\n"
        "clusters = (\n"
        "  { id = 0; pes = [0, 1, 2, 3];\n"
        "    inis = ( { id = 0; ip = \"198.18.0.1\"; }, { id = 1; ip = \"198.18.0.2\"; } ); },\n"
        "  { id = 1; pes = [4]; inis = ( { id = 2; ip = \"198.18.1.3\"; } ); }\n"
        ");\n");
    const struct ini_config *c = load_ok(path);
    assert_scalar_fields(c, SCALAR_DEFAULT);
    assert_int_equal(c->stack.segmentation, ini_swp_defaults().segment);
    assert_string_equal(c->bridge, "inibr0");
    assert_int_equal(c->n_clusters, 2);
    assert_int_equal(c->n_pes, 5);
    assert_int_equal(c->n_inis, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(c->inis[i].core, -1);
        assert_string_equal(c->inis[i].devargs, "");
        assert_mac(c->inis[i].mac, 0x02, 0x00, 0xc6, 0x12, 0x00, (uint8_t)i);
    }
    /* Blocks: local index i uses INI index i * n_inis / n_pes. */
    assert_int_equal(c->pes[0].static_ini, 0);
    assert_int_equal(c->pes[1].static_ini, 0);
    assert_int_equal(c->pes[2].static_ini, 1);
    assert_int_equal(c->pes[3].static_ini, 1);
    assert_int_equal(c->pes[4].static_ini, 2);
    assert_int_equal(c->pes[4].local, 0);
    assert_int_equal(c->inis[2].cluster, 1);
    assert_int_equal(c->inis[1].index, 1);
}

static void test_every_field(void **state)
{
    const char *path = write_file("full.cfg",
        "version = 1;\n"
        "network = { mode = \"pci\"; bridge = \"br-test\"; port = \"af_packet\"; };\n"
        "policy  = { compute = \"round-robin\"; ini = \"load-aware\"; };\n"
        "stack   = { mtu = 9000; window = 128; seq_bits = 8; send_timeout_us = 10000000;\n"
        "            ack_timeout_us = 1; max_message = 1; nak = false; segmentation = false; };\n"
        "idle    = { mode = \"adaptive\"; spin_us = 0; max_sleep_us = 1000000; yield_us = 1000000;\n"
        "            colocate = false; };\n"
        "trace   = { mode = \"detailed\"; records = 67108864; };\n"
        "eal     = { memory_mb = 16384; args = [ \"--no-telemetry\", \"--log-level=7\" ]; };\n"
        "restart = { max = 100; window_s = 86400; };\n"
        "rings   = { bytes = 1073741824; };\n"
        "clusters = (\n"
        "  { id = 1; pes = [3, 1];\n"
        "    inis = ( { id = 1; core = 1023; ip = \"198.19.255.254\"; mac = \"AA:bb:cc:dd:ee:ff\";\n"
        "               devargs = \"0000:03:00.1\"; },\n"
        "             { id = 0; core = 0; ip = \"198.18.0.9\"; devargs = \"0000:03:00.0\"; } );\n"
        "    static = [1, 0]; },\n"
        "  { id = 0; pes = [0, 2]; inis = ( { id = 2; ip = \"198.18.0.10\"; devargs = \"net_null0\"; } ); }\n"
        ");\n");
    const struct ini_config *c = load_ok(path);
    assert_scalar_fields(c, SCALAR_FULL);
    assert_int_equal(c->stack.segmentation, 0);
    assert_string_equal(c->bridge, "br-test");
    assert_int_equal(c->port, INI_PORT_AF_PACKET);
    assert_string_equal(c->eal_args[1], "--log-level=7");

    /* Cluster 1 lists pes [3, 1] and static [1, 0]: PE 3 -> INI 1, PE 1 -> INI 0;
     * the cluster's array is sorted, so PE 1 is local 0. */
    const struct ini_cluster_cfg *cl = &c->clusters[1];
    assert_int_equal(cl->n_pes, 2);
    assert_int_equal(cl->pes[0], 1);
    assert_int_equal(cl->pes[1], 3);
    assert_int_equal(cl->inis[0], 1);
    assert_int_equal(cl->inis[1], 0);
    assert_int_equal(c->pes[1].local, 0);
    assert_int_equal(c->pes[3].local, 1);
    assert_int_equal(c->pes[3].static_ini, 1);
    assert_int_equal(c->pes[1].static_ini, 0);
    assert_int_equal(c->pes[2].cluster, 0);
    assert_int_equal(c->pes[2].static_ini, 2);
    assert_int_equal(c->inis[1].index, 0);
    assert_int_equal(c->inis[0].index, 1);
    assert_int_equal(c->inis[1].core, 1023);
    assert_int_equal(c->inis[1].ip, ip_of("198.19.255.254"));
    assert_mac(c->inis[1].mac, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff);
    assert_mac(c->inis[0].mac, 0x02, 0x00, 0xc6, 0x12, 0x00, 0x00);
    assert_string_equal(c->inis[0].devargs, "0000:03:00.0");
    assert_string_equal(c->inis[2].devargs, "net_null0");
}

static void test_include_is_relative_to_the_file(void **state)
{
    write_file("part.cfg",
        "clusters = ( { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); } );\n");
    const char *path = write_file("main.cfg", "version = 1;\n@include \"part.cfg\"\n");
    const struct ini_config *c = load_ok(path);
    assert_int_equal(c->n_pes, 1);

    /* An error in the included file names that file and its line. */
    char part[INI_PATH_LEN], expected[INI_PATH_LEN + 64], err[512];
    snprintf(part, sizeof part, "%s", write_file("part.cfg",
        "stack = { mtu = 1; };\n"
        "clusters = ( { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); } );\n"));
    path = write_file("main.cfg", "version = 1;\n@include \"part.cfg\"\n");
    struct ini_config cfg;
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), -1);
    snprintf(expected, sizeof expected, "%s:1: stack.mtu: ", part);
    if (strncmp(err, expected, strlen(expected)) != 0)
        print_error("expected %s..., got %s\n", expected, err);
    assert_memory_equal(err, expected, strlen(expected));
}

/* An @include of a directory made libconfig exit(2) inside the library
 * ("input in flex scanner failed"; found by fuzz_config), of a FIFO would
 * block: both refused first with the usual line, from a file and from
 * text, also one include deep. */
static void test_include_of_a_non_regular_file(void **state)
{
    (void)state;
    char err[512];
    struct ini_config cfg;
    const char *path = write_file("main.cfg", "version = 1;\n  @include \"\"\n");
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "main.cfg:2: file: @include \"\": "));
    assert_int_equal(ini_config_load_text("version = 1;\n@include \"\"\n", path, &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "main.cfg:2: file: @include \"\": "));

    char fifo[INI_PATH_LEN + 16];
    snprintf(fifo, sizeof fifo, "%s", write_file("part.cfg", ""));
    unlink(fifo);
    snprintf(fifo + strlen(fifo) - strlen("part.cfg"), 16, "f.fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    write_file("part.cfg", "@include \"f.fifo\"\n");
    path = write_file("main.cfg", "version = 1;\n@include \"part.cfg\"\n");
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "part.cfg:1: file: @include \"f.fifo\": not a regular file"));
    unlink(fifo);
}

/* ---- invalid files ------------------------------------------------------ */

struct bad_case {
    const char *name;
    const char *text;
    int line;
    const char *field;
    const char *message;   /* a fragment the message must contain */
};

/* Two clusters of two PEs and one INI, on lines 3 and 4. */
#define CLUSTERS \
    "clusters = ( { id = 0; pes = [0, 1]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); },\n" \
    "             { id = 1; pes = [2, 3]; inis = ( { id = 1; ip = \"198.18.0.2\"; } ); } );\n"

/* A top-level group GROUP on line 2, followed by CLUSTERS. */
#define WITH(group) "version = 1;\n" group "\n" CLUSTERS

/* Cluster 0 (PEs 0 and 1, INI 0) on line 2 and SECOND, cluster 1, on line 3. */
#define THEN_CLUSTER(second) \
    "version = 1;\nclusters = ( { id = 0; pes = [0, 1]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); },\n" \
    "             " second " );\n"

/* One cluster of PE 0 and INI 0, whose fields are FIELDS, on line 2 (and on,
 * where FIELDS hold a newline). */
#define ONE_INI(fields) \
    "version = 1;\nclusters = ( { id = 0; pes = [0]; inis = ( { id = 0; " fields " } ); } );\n"

/* One cluster of PES and INI 0 on line 3, REST (its other fields) on line 4. */
#define CLUSTER_WITH(pes, rest) \
    "version = 1;\nclusters = (\n  { id = 0; pes = " pes "; inis = ( { id = 0; ip = \"198.18.0.1\"; } );\n" \
    "    " rest " }\n);\n"

static const struct bad_case bad_cases[] = {
    /* syntax */
    { "syntax error", "version = 1;\nstack = { mtu = ; };\n" CLUSTERS, 2, "syntax", "syntax error" },
    { "duplicate name", "version = 1;\nversion = 1;\n" CLUSTERS, 2, "syntax", "duplicate" },
    { "mixed array", "version = 1;\neal = { args = [\"a\", 1]; };\n" CLUSTERS, 2, "syntax", "array" },

    /* security.mac: auto, on or off, and no key with off */
    { "mac value", "version = 1;\nsecurity = { mac = \"maybe\"; };\n" CLUSTERS, 2, "security.mac",
      "unknown value \"maybe\" (expected auto, on or off)" },
    { "mac not a string", "version = 1;\nsecurity = { mac = 0; };\n" CLUSTERS, 2, "security.mac", "string" },
    { "mac off with a key", "version = 1;\nsecurity = { mac = \"off\";\n key_file = \"k\"; };\n" CLUSTERS, 3,
      "security.key_file", "a key with mac = \"off\"" },

    /* required fields */
    { "no version", "network = { mode = \"memif\"; };\n" CLUSTERS, 0, "version", "missing" },
    { "no clusters", "version = 1;\n", 0, "clusters", "missing" },
    { "no cluster id",
      "version = 1;\nclusters = (\n  { pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); }\n);\n",
      3, "clusters[0].id", "missing" },
    { "no pes",
      "version = 1;\nclusters = (\n  { id = 0; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); }\n);\n",
      3, "clusters[0].pes", "missing" },
    { "no inis", "version = 1;\nclusters = (\n  { id = 0; pes = [0]; }\n);\n",
      3, "clusters[0].inis", "missing" },
    { "no INI id",
      "version = 1;\nclusters = (\n  { id = 0; pes = [0];\n    inis = (\n      { ip = \"198.18.0.1\"; } ); }\n);\n",
      5, "clusters[0].inis[0].id", "missing" },
    { "no INI ip",
      "version = 1;\nclusters = (\n  { id = 0; pes = [0];\n    inis = ( { id = 0; } ); }\n);\n",
      4, "clusters[0].inis[0].ip", "missing" },
    { "no devargs in pci mode", WITH("network = { mode = \"pci\"; };"), 3,
      "clusters[0].inis[0].devargs", "pci" },
    { "empty cluster list", "version = 1;\nclusters = ( );\n", 2, "clusters", "no cluster" },

    /* types */
    { "version string", "version = \"1\";\n" CLUSTERS, 1, "version", "integer" },
    { "mtu string", WITH("stack = { mtu = \"1500\"; };"), 2, "stack.mtu", "expected an integer" },
    { "mtu float", WITH("stack = { mtu = 1500.0; };"), 2, "stack.mtu", "expected an integer" },
    { "nak integer", WITH("stack = { nak = 1; };"), 2, "stack.nak", "true or false" },
    { "segmentation string", WITH("stack = { segmentation = \"on\"; };"), 2, "stack.segmentation",
      "true or false" },
    { "group is scalar", WITH("stack = 5;"), 2, "stack", "expected a group" },
    { "enum not string", WITH("idle = { mode = 1; };"), 2, "idle.mode", "expected a string" },
    { "eal arg integer", WITH("eal = { args = [ 1 ]; };"), 2, "eal.args[0]", "expected a string" },
    { "clusters group", "version = 1;\nclusters = { id = 0; };\n", 2, "clusters", "expected a list" },
    { "pes scalar",
      "version = 1;\nclusters = (\n  { id = 0; pes = 0; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); }\n);\n",
      3, "clusters[0].pes", "expected an array" },
    { "pes element string",
      "version = 1;\nclusters = (\n  { id = 0; pes = (0,\n  \"1\"); inis = ( { id = 0; ip = \"198.18.0.1\"; } ); }\n);\n",
      4, "clusters[0].pes[1]", "expected an integer" },
    { "inis group",
      "version = 1;\nclusters = (\n  { id = 0; pes = [0]; inis = { id = 0; ip = \"198.18.0.1\"; }; }\n);\n",
      3, "clusters[0].inis", "expected a list" },
    { "ip integer",
      "version = 1;\nclusters = (\n  { id = 0; pes = [0]; inis = ( { id = 0; ip = 3323068417; } ); }\n);\n",
      3, "clusters[0].inis[0].ip", "expected a string" },
    { "static string",
      CLUSTER_WITH("[0]", "static = \"0\";"),
      4, "clusters[0].static", "expected an array" },

    /* unknown names */
    { "unknown top-level", WITH("stak = { mtu = 1500; };"), 2, "stak", "unknown field" },
    { "unknown stack field", WITH("stack = { windw = 16; };"), 2, "stack.windw", "unknown field" },
    { "unknown INI field",
      "version = 1;\nclusters = (\n  { id = 0; pes = [0];\n"
      "    inis = ( { id = 0; ip = \"198.18.0.1\";\n               adress = \"x\"; } ); }\n);\n",
      5, "clusters[0].inis[0].adress", "unknown field" },
    { "unknown cluster field",
      CLUSTER_WITH("[0]", "statc = [0];"),
      4, "clusters[0].statc", "unknown field" },

    /* unknown enum names */
    { "unknown network mode", WITH("network = { mode = \"tap\"; };"), 2, "network.mode", "unknown value \"tap\"" },
    { "unknown network port", WITH("network = { port = \"af_xpd\"; };"), 2, "network.port",
      "unknown value \"af_xpd\" (expected auto, af_xdp or af_packet)" },
    { "unknown compute policy", WITH("policy = { compute = \"random\"; };"), 2, "policy.compute", "round-robin" },
    { "unknown INI policy", WITH("policy = { ini = \"Static\"; };"), 2, "policy.ini", "unknown value" },
    { "unknown idle mode", WITH("idle = { mode = \"sleep\"; };"), 2, "idle.mode", "poll, adaptive or auto" },
    { "unknown trace mode", WITH("trace = { mode = \"verbose\"; };"), 2, "trace.mode", "unknown value" },

    /* ids */
    { "duplicate cluster id",
      THEN_CLUSTER("{ id = 0; pes = [2, 3]; inis = ( { id = 1; ip = \"198.18.0.2\"; } ); }"),
      3, "clusters[1].id", "duplicate cluster id 0" },
    { "cluster ids not dense",
      THEN_CLUSTER("{ id = 2; pes = [2, 3]; inis = ( { id = 1; ip = \"198.18.0.2\"; } ); }"),
      3, "clusters[1].id", "out of range 0..1" },
    { "negative cluster id",
      "version = 1;\nclusters = ( { id = -1; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); } );\n",
      2, "clusters[0].id", "out of range 0..0" },
    { "duplicate PE id",
      "version = 1;\nclusters = ( { id = 0; pes = [0, 0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); },\n"
      "             { id = 1; pes = [2, 3]; inis = ( { id = 1; ip = \"198.18.0.2\"; } ); } );\n",
      2, "clusters[0].pes[1]", "duplicate compute node id 0" },
    { "PE ids not dense",
      THEN_CLUSTER("{ id = 1; pes = [2, 5]; inis = ( { id = 1; ip = \"198.18.0.2\"; } ); }"),
      3, "clusters[1].pes[1]", "out of range 0..3" },
    { "PE in two clusters",
      THEN_CLUSTER("{ id = 1; pes = [1, 2]; inis = ( { id = 1; ip = \"198.18.0.2\"; } ); }"),
      3, "clusters[1].pes[0]", "compute node 1 is already in cluster 0" },
    { "duplicate INI id",
      THEN_CLUSTER("{ id = 1; pes = [2, 3]; inis = ( { id = 0; ip = \"198.18.0.2\"; } ); }"),
      3, "clusters[1].inis[0].id", "duplicate INI id 0" },
    { "INI ids not dense",
      THEN_CLUSTER("{ id = 1; pes = [2, 3]; inis = ( { id = 3; ip = \"198.18.0.2\"; } ); }"),
      3, "clusters[1].inis[0].id", "INI id 3 is out of range 0..1" },
    { "compute nodes without INI",
      THEN_CLUSTER("{ id = 1; pes = [2, 3];\n               inis = ( ); }"),
      4, "clusters[1].inis", "compute node 2 has no INI" },
    { "empty cluster",
      "version = 1;\nclusters = ( { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); },\n"
      "             { id = 1; pes = [ ]; inis = ( ); } );\n",
      3, "clusters[1]", "no compute node and no INI" },

    /* addresses */
    { "IP used twice",
      THEN_CLUSTER("{ id = 1; pes = [2, 3]; inis = ( { id = 1; ip = \"198.18.0.1\"; } ); }"),
      3, "clusters[1].inis[0].ip", "198.18.0.1 is already the address of INI 0" },
    { "MAC used twice",
      "version = 1;\nclusters = (\n"
      "  { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; mac = \"02:00:c6:12:00:07\"; } ); },\n"
      "  { id = 1; pes = [1]; inis = ( { id = 1; ip = \"198.18.0.2\"; mac = \"02:00:C6:12:00:07\"; } ); }\n);\n",
      4, "clusters[1].inis[0].mac", "02:00:c6:12:00:07 is already the MAC of INI 0" },
    { "MAC equal to a derived one",
      "version = 1;\nclusters = (\n"
      "  { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; mac = \"02:00:c6:12:00:01\"; } ); },\n"
      "  { id = 1; pes = [1];\n    inis = ( { id = 1; ip = \"198.18.0.2\"; } ); }\n);\n",
      5, "clusters[1].inis[0].mac", "derived from the id" },
    { "IP with a byte over 255",
      ONE_INI("ip = \"198.18.0.256\";"),
      2, "clusters[0].inis[0].ip", "not an IPv4 address" },
    { "IP with three parts",
      ONE_INI("ip = \"198.18.1\";"),
      2, "clusters[0].inis[0].ip", "not an IPv4 address" },
    { "IP multicast",
      ONE_INI("ip = \"224.0.0.1\";"),
      2, "clusters[0].inis[0].ip", "not a unicast address" },
    { "MAC with five bytes",
      ONE_INI("ip = \"198.18.0.1\";\n  mac = \"02:00:c6:12:00\";"),
      3, "clusters[0].inis[0].mac", "not a MAC address" },
    { "MAC with a bad digit",
      ONE_INI("ip = \"198.18.0.1\";\n  mac = \"02:00:c6:12:00:0g\";"),
      3, "clusters[0].inis[0].mac", "not a MAC address" },
    { "MAC with dashes",
      ONE_INI("ip = \"198.18.0.1\";\n  mac = \"02-00-c6-12-00-01\";"),
      3, "clusters[0].inis[0].mac", "not a MAC address" },
    { "MAC multicast",
      ONE_INI("ip = \"198.18.0.1\";\n  mac = \"01:00:5e:00:00:01\";"),
      3, "clusters[0].inis[0].mac", "not a unicast address" },

    /* static mapping */
    { "static names INI of another cluster",
      "version = 1;\nclusters = (\n  { id = 0; pes = [0, 1]; inis = ( { id = 0; ip = \"198.18.0.1\"; } );\n"
      "    static = [0,\n              1]; },\n"
      "  { id = 1; pes = [2, 3]; inis = ( { id = 1; ip = \"198.18.0.2\"; } ); }\n);\n",
      5, "clusters[0].static[1]", "INI 1 belongs to cluster 1" },
    { "static names no INI",
      CLUSTER_WITH("[0]", "static = [7];"),
      4, "clusters[0].static[0]", "INI 7 does not exist" },
    { "static shorter than pes",
      CLUSTER_WITH("[0, 1]", "static = [0];"),
      4, "clusters[0].static", "length 1 differs from the length of pes (2)" },
    { "static longer than pes",
      CLUSTER_WITH("[0]", "static = [0, 0];"),
      4, "clusters[0].static", "length 2 differs from the length of pes (1)" },

    /* ranges */
    { "version 2", "version = 2;\n" CLUSTERS, 1, "version", "unsupported version 2" },
    { "mtu too small", WITH("stack = { mtu = 575; };"), 2, "stack.mtu", "575 is out of range 576..9000" },
    { "mtu too large", WITH("stack = { mtu = 9001; };"), 2, "stack.mtu", "out of range 576..9000" },
    { "window 0", WITH("stack = { window = 0; };"), 2, "stack.window", "out of range 1..4096" },
    { "window over 4096", WITH("stack = { window = 4097; seq_bits = 32; };"), 2, "stack.window",
      "out of range 1..4096" },
    { "window over half of 8-bit space", WITH("stack = { seq_bits = 8; window = 129; };"), 2,
      "stack.window", "out of range 1..128" },
    { "seq_bits 12", WITH("stack = { seq_bits = 12; };"), 2, "stack.seq_bits", "not 8, 16 or 32" },
    { "fault rate over 1", WITH("faults = { drop = 2.0; };"), 2, "faults.drop", "not a rate between 0 and 1" },
    { "unknown fault", WITH("faults = { lose = 0.1; };"), 2, "faults.lose", "unknown field" },
    { "fault side", WITH("faults = { side = \"both\"; };"), 2, "faults.side", "neither tx nor rx" },
    { "unknown knob", WITH("knobs = { bogus = 1; };"), 2, "knobs.bogus", "unknown field" },
    { "knob mode", WITH("knobs = { O_mode = \"fast\"; };"), 2, "knobs.O_mode", "neither spin nor sleep" },
    { "negative knob", WITH("knobs = { latency_us = -5.0; };"), 2, "knobs.latency_us", "not a number in" },
    { "send timeout 0", WITH("stack = { send_timeout_us = 0; };"), 2, "stack.send_timeout_us",
      "out of range 1..10000000" },
    { "send timeout too long", WITH("stack = { send_timeout_us = 10000001; };"), 2,
      "stack.send_timeout_us", "out of range 1..10000000" },
    { "ack timeout 0", WITH("stack = { ack_timeout_us = 0; };"), 2, "stack.ack_timeout_us",
      "out of range" },
    { "ack timeout not below send", WITH("stack = { send_timeout_us = 500; ack_timeout_us = 500; };"), 2,
      "stack.ack_timeout_us", "less than send_timeout_us" },
    { "send timeout below default ack", WITH("stack = { send_timeout_us = 100; };"), 2,
      "stack.send_timeout_us", "more than ack_timeout_us" },
    { "max_message 0", WITH("stack = { max_message = 0; };"), 2, "stack.max_message", "out of range 1..65000" },
    { "max_message over 65000", WITH("stack = { max_message = 65001; };"), 2, "stack.max_message",
      "out of range 1..65000" },
    { "spin negative", WITH("idle = { spin_us = -1; };"), 2, "idle.spin_us", "out of range 0..1000000" },
    { "spin too long", WITH("idle = { spin_us = 1000001; };"), 2, "idle.spin_us", "out of range" },
    { "max sleep 0", WITH("idle = { max_sleep_us = 0; };"), 2, "idle.max_sleep_us", "out of range 1..1000000" },
    { "max sleep too long", WITH("idle = { max_sleep_us = 1000001; };"), 2, "idle.max_sleep_us", "out of range" },
    { "yield negative", WITH("idle = { yield_us = -1; };"), 2, "idle.yield_us", "out of range 0..1000000" },
    { "yield too long", WITH("idle = { yield_us = 1000001; };"), 2, "idle.yield_us", "out of range" },
    { "colocate integer", WITH("idle = { colocate = 1; };"), 2, "idle.colocate", "true or false" },
    { "restart max negative", WITH("restart = { max = -1; };"), 2, "restart.max", "out of range 0..100" },
    { "restart max too many", WITH("restart = { max = 101; };"), 2, "restart.max", "out of range 0..100" },
    { "restart window 0", WITH("restart = { window_s = 0; };"), 2, "restart.window_s", "out of range 1..86400" },
    { "restart unknown", WITH("restart = { tries = 3; };"), 2, "restart.tries", "unknown" },
    { "restart not a group", WITH("restart = 3;"), 2, "restart", "group" },
    { "records too few", WITH("trace = { records = 1023; };"), 2, "trace.records", "out of range 1024..67108864" },
    { "records too many", WITH("trace = { records = 67108865; };"), 2, "trace.records", "out of range" },
    { "records 64-bit", WITH("trace = { records = 4294967296L; };"), 2, "trace.records", "out of range" },
    { "memory too small", WITH("eal = { memory_mb = 63; };"), 2, "eal.memory_mb", "out of range 128..16384" },
    /* issue 17, item 10: 64 MiB cannot hold a daemon's mbuf pool */
    { "memory 64", WITH("eal = { memory_mb = 64; };"), 2, "eal.memory_mb", "out of range 128..16384" },
    { "memory below the pool at MTU 9000", WITH("stack = { mtu = 9000; };\neal = { memory_mb = 200; };"), 3,
      "eal.memory_mb", "200 MiB cannot hold a daemon's 16383 mbufs at MTU 9000: at least 212" },
    /* issue 17, item 2: DPDK 22.11's af_packet takes frames of 1518 bytes */
    { "af_packet jumbo", WITH("network = { mode = \"af_packet\"; };\nstack = { mtu = 9000; };"), 3,
      "stack.mtu", "9000 is above 1500, the largest MTU of DPDK 22.11's af_packet driver" },
    { "memory too large", WITH("eal = { memory_mb = 16385; };"), 2, "eal.memory_mb", "out of range" },
    /* issue 47: the rings' size is configurable, within what a ring can be */
    { "rings too small", WITH("rings = { bytes = 65536; };"), 2, "rings.bytes", "out of range 131072..1073741824" },
    { "rings too large", WITH("rings = { bytes = 2147483647; };"), 2, "rings.bytes", "out of range" },
    { "rings not a power of two", WITH("rings = { bytes = 196608; };"), 2, "rings.bytes",
      "196608 is not a power of two" },
    { "rings unknown", WITH("rings = { size = 4; };"), 2, "rings.size", "unknown" },
    { "rings not a group", WITH("rings = 4;"), 2, "rings", "group" },
    { "core -2",
      ONE_INI("core = -2; ip = \"198.18.0.1\";"),
      2, "clusters[0].inis[0].core", "out of range -1..1023" },
    { "core 1024",
      ONE_INI("core = 1024; ip = \"198.18.0.1\";"),
      2, "clusters[0].inis[0].core", "out of range -1..1023" },
    { "bridge too long", WITH("network = { bridge = \"bridge-name-of-16\"; };"), 2, "network.bridge",
      "longer than 15" },
    { "bridge empty", WITH("network = { bridge = \"\"; };"), 2, "network.bridge", "empty" },
    { "eal arg empty", WITH("eal = { args = [ \"\" ]; };"), 2, "eal.args[0]", "empty" },
    { "devargs empty in pci mode",
      "version = 1;\nnetwork = { mode = \"pci\"; };\n"
      "clusters = ( { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; devargs = \"\"; } ); } );\n",
      3, "clusters[0].inis[0].devargs", "pci mode" },
};

/* Checks one rejected file; returns 0 if the error is the expected one. */
static int check_rejected(const char *name, const char *path, int line, const char *field,
                          const char *message)
{
    struct ini_config cfg;
    char err[512], prefix[INI_PATH_LEN + 128];
    memset(&cfg, 0x5a, sizeof cfg);
    int rc = ini_config_load(path, &cfg, err, sizeof err);
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%d: %s: ", path, line, field);
    else    /* the file as a whole: no line */
        snprintf(prefix, sizeof prefix, "%s: %s: ", path, field);

    const char *problem = NULL;
    if (rc != -1)
        problem = "accepted";
    else if (strncmp(err, prefix, strlen(prefix)) != 0)
        problem = "wrong location";
    else if (strchr(err, '\n'))
        problem = "more than one line";
    else if (!strstr(err + strlen(prefix), message))
        problem = "wrong message";
    else {
        /* A rejected file leaves the caller's struct as it was. */
        const unsigned char *bytes = (const unsigned char *)&cfg;
        for (size_t i = 0; i < sizeof cfg && !problem; i++)
            if (bytes[i] != 0x5a)
                problem = "result modified";
    }
    if (problem)
        print_error("case \"%s\": %s\n  expected: %s... %s\n  got:      %s\n", name, problem, prefix,
                    message, rc == -1 ? err : "(no error)");
    return problem ? 1 : 0;
}

/* security.mac: auto is on where links leave the host, off on memif;
 * on and off say so in any mode. */
static void test_mac_modes(void **state)
{
    static const struct { const char *mode, *mac; int on; } cases[] = {
        { "memif", "auto", 0 },     { "memif", "on", 1 },     { "memif", "off", 0 },
        { "af_packet", "auto", 1 }, { "af_packet", "on", 1 }, { "af_packet", "off", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[1024], err[512];
        static struct ini_config cfg;
        snprintf(text, sizeof text, "version = 1;\nnetwork = { mode = \"%s\"; };\nsecurity = { mac = \"%s\"; };\n%s",
                 cases[i].mode, cases[i].mac, CLUSTERS);
        assert_int_equal(ini_config_load_text(text, "mac.cfg", &cfg, err, sizeof err), 0);
        assert_int_equal(ini_config_mac_on(&cfg), cases[i].on);
    }
}

static void test_invalid_files(void **state)
{
    int failures = 0;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        const char *path = write_file("bad.cfg", c->text);
        failures += check_rejected(c->name, path, c->line, c->field, c->message);
    }
    assert_int_equal(failures, 0);
}

/* Files too big to write by hand: each cluster on its own line (line 3+i). */
static char *machine_text(int n_clusters, int pes_per_cluster, int inis_per_cluster)
{
    char *text;
    size_t size;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    fputs("version = 1;\nclusters = (\n", f);
    int pe = 0, ini = 0;
    for (int c = 0; c < n_clusters; c++) {
        fprintf(f, "  { id = %d; pes = [", c);
        for (int p = 0; p < pes_per_cluster; p++)
            fprintf(f, "%s%d", p ? ", " : "", pe++);
        fputs("]; inis = (", f);
        for (int k = 0; k < inis_per_cluster; k++, ini++)
            fprintf(f, "%s { id = %d; ip = \"198.18.%d.%d\"; }", k ? "," : "", ini,
                    (ini + 1) >> 8, (ini + 1) & 255);
        fprintf(f, " ); }%s\n", c + 1 < n_clusters ? "," : "");
    }
    fputs(");\n", f);
    fclose(f);
    return text;
}

/* Issue 17 item 13: inputs that used to hang or lose their reason.  A FIFO
 * is refused at once (alarm: the old loader blocked in open for ever); a
 * file over INI_CONFIG_MAX_BYTES is refused before parsing, naming the
 * limit; a path far beyond any buffer keeps the reason at the end of the
 * one line, the path shortened with "..."; text from memory loads under
 * the name given, and its errors name it. */
static void test_odd_inputs(void **state)
{
    char err[1024], path[INI_PATH_LEN + 64];
    struct ini_config *cfg = malloc(sizeof *cfg);
    assert_non_null(cfg);

    snprintf(path, sizeof path, "%s/fifo.cfg", tmp_dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);                          /* a hang fails the test instead of stalling it */
    assert_int_equal(ini_config_load(path, cfg, err, sizeof err), -1);
    alarm(0);
    char want[INI_PATH_LEN + 128];
    snprintf(want, sizeof want, "%s: file: not a regular file (a FIFO or pipe)", path);
    assert_string_equal(err, want);

    size_t big = INI_CONFIG_MAX_BYTES + 1;
    char *text = malloc(big + 1);
    assert_non_null(text);
    memset(text, '#', big);
    text[big - 1] = '\n';
    text[big] = '\0';
    const char *p = write_file("huge.cfg", text);
    assert_int_equal(ini_config_load(p, cfg, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: file: %zu bytes, more than the limit of %d", p, big,
             INI_CONFIG_MAX_BYTES);
    assert_string_equal(err, want);
    assert_int_equal(ini_config_load_text(text, "/dev/fd/63", cfg, err, sizeof err), -1);
    assert_string_equal(err, "/dev/fd/63: file: more than the limit of 1048576 bytes");
    free(text);

    char *long_path = malloc(1201);
    assert_non_null(long_path);
    memset(long_path, 'd', 1200);
    long_path[0] = '/';
    memcpy(long_path + 1200 - 8, "/end.cfg", 8);
    long_path[1200] = '\0';
    assert_int_equal(ini_config_load(long_path, cfg, err, sizeof err), -1);
    const char *tail = "/end.cfg: file: path longer than 511 characters";
    assert_true(strlen(err) < sizeof err - 1);
    assert_non_null(strstr(err, "..."));
    assert_string_equal(err + strlen(err) - strlen(tail), tail);
    free(long_path);

    assert_int_equal(ini_config_load_text("version = 1;\nclusters = ( { id = 0; pes = [0 }\n", "/dev/fd/63",
                                          cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "/dev/fd/63:2: syntax: "));
    assert_int_equal(ini_config_load_text("version = 1;\nclusters = ( { id = 0; pes = [0]; inis = "
                                          "( { id = 0; ip = \"198.18.0.1\"; } ); } );\n",
                                          "/dev/fd/63", cfg, err, sizeof err), 0);
    assert_int_equal(cfg->n_pes, 1);
    assert_string_equal(cfg->path, "/dev/fd/63");
    free(cfg);
}

/* Machines one over a limit (machine_text's clusters x PEs x INIs), each
 * refused at the cluster line that crosses it. */
static const struct {
    const char *name;
    int n_clusters, pes_per_cluster, inis_per_cluster;
    int line;
    const char *field, *message;
} too_big[] = {
    { "too many clusters", INI_MAX_CLUSTERS + 1, 1, 1, 2, "clusters", "65 clusters, at most 64" },
    { "too many PEs in a cluster", 1, INI_MAX_PES_PER_CLUSTER + 1, 1, 3, "clusters[0].pes",
      "65 entries, at most 64" },
    { "too many INIs in a cluster", 1, 1, INI_MAX_INIS_PER_CLUSTER + 1, 3, "clusters[0].inis",
      "17 INIs, at most 16" },
    /* 9 x 16 = 144 INIs: the 129th is the first of cluster 8. */
    { "too many INIs", 9, 1, 16, 11, "clusters[8].inis[0]", "more than 128 INIs" },
    /* 5 x 64 = 320 PEs: cluster 4 goes over 256. */
    { "too many PEs", 5, 64, 1, 7, "clusters[4].pes", "more than 256 compute nodes" },
};

static void test_limits(void **state)
{
    int failures = 0;
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++) {
        char *text = machine_text(too_big[i].n_clusters, too_big[i].pes_per_cluster, too_big[i].inis_per_cluster);
        failures += check_rejected(too_big[i].name, write_file("big.cfg", text), too_big[i].line, too_big[i].field,
                                   too_big[i].message);
        free(text);
    }

    char args[2048] = "version = 1;\neal = { args = [";
    for (int i = 0; i <= INI_MAX_EAL_ARGS; i++)
        strcat(args, i ? ", \"-v\"" : "\"-v\"");
    strcat(args, "]; };\n" CLUSTERS);
    failures += check_rejected("too many EAL args", write_file("big.cfg", args), 2, "eal.args",
                               "33 entries, at most 32");

    char long_arg[1024] = "version = 1;\neal = { args = [\"";
    memset(long_arg + strlen(long_arg), 'x', 128);
    strcat(long_arg, "\"]; };\n" CLUSTERS);
    failures += check_rejected("EAL arg too long", write_file("big.cfg", long_arg), 2, "eal.args[0]",
                               "longer than 127");

    assert_int_equal(failures, 0);
}

static void test_unreadable(void **state)
{
    struct ini_config cfg;
    char path[INI_PATH_LEN], err[512], prefix[INI_PATH_LEN + 32];

    snprintf(path, sizeof path, "%s/does-not-exist.cfg", tmp_dir);
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), -1);
    snprintf(prefix, sizeof prefix, "%s: file: ", path);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err, "No such file"));

    assert_int_equal(ini_config_load(tmp_dir, &cfg, err, sizeof err), -1);
    snprintf(prefix, sizeof prefix, "%s: file: ", tmp_dir);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err, "directory"));
}

static void test_error_stays_one_line(void **state)
{
    /* A string of the file carrying a newline must not split the error. */
    const char *path = write_file("nl.cfg", WITH("network = { mode = \"mem\\nif\"; };"));
    struct ini_config cfg;
    char err[512];
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), -1);
    assert_null(strchr(err, '\n'));

    /* A small buffer truncates, it does not overflow. */
    char tiny[8];
    assert_int_equal(ini_config_load(path, &cfg, tiny, sizeof tiny), -1);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
    assert_int_equal(ini_config_load(path, &cfg, NULL, 0), -1);
}

/* ---- the generator (ini-cluster gen, tools/cluster/cluster_gen.c) -------- */

/* A machine across hosts. */
static int generate_hosts(FILE *f, int n_clusters, int pes_per_cluster, int inis_per_cluster,
                          enum ini_net_mode mode, const char *const *hosts, int n_hosts,
                          const char *const *devices, int n_devices, char *err, size_t errlen)
{
    const struct gen_machine m = { .n_clusters = n_clusters, .pes_per_cluster = pes_per_cluster,
                                   .inis_per_cluster = inis_per_cluster, .mode = mode, .hosts = hosts,
                                   .n_hosts = n_hosts, .devices = devices, .n_devices = n_devices };
    return gen_write(f, &m, err, errlen);
}

/* A machine on this host. */
static int generate(FILE *f, int n_clusters, int pes_per_cluster, int inis_per_cluster,
                    enum ini_net_mode mode, char *err, size_t errlen)
{
    return generate_hosts(f, n_clusters, pes_per_cluster, inis_per_cluster, mode, NULL, 0, NULL, 0, err, errlen);
}

/* Generates, reloads and checks the machine against what was asked. */
static void check_generated(int n_clusters, int pes_per_cluster, int inis_per_cluster,
                            enum ini_net_mode mode)
{
    char path[INI_PATH_LEN], err[512] = "";
    snprintf(path, sizeof path, "%s/gen-%d-%d-%d.cfg", tmp_dir, n_clusters, pes_per_cluster,
             inis_per_cluster);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int rc = generate(f, n_clusters, pes_per_cluster, inis_per_cluster, mode, err, sizeof err);
    assert_int_equal(fclose(f), 0);
    if (rc != 0)
        print_error("generate %d %d %d: %s\n", n_clusters, pes_per_cluster, inis_per_cluster, err);
    assert_int_equal(rc, 0);

    const struct ini_config *cfg = load_ok(path);
    assert_int_equal(cfg->net_mode, mode);
    assert_int_equal(cfg->n_clusters, n_clusters);
    assert_int_equal(cfg->n_pes, n_clusters * pes_per_cluster);
    assert_int_equal(cfg->n_inis, n_clusters * inis_per_cluster);
    for (int c = 0; c < n_clusters; c++) {
        const struct ini_cluster_cfg *cl = &cfg->clusters[c];
        assert_int_equal(cl->n_pes, pes_per_cluster);
        assert_int_equal(cl->n_inis, inis_per_cluster);
        for (int i = 0; i < pes_per_cluster; i++) {
            const struct ini_pe_cfg *pe = &cfg->pes[cl->pes[i]];
            /* Blocks, as the loader's default would have it. */
            assert_int_equal(pe->static_ini, cl->inis[i * inis_per_cluster / pes_per_cluster]);
        }
        /* With at least as many PEs as INIs, every INI serves someone. */
        if (pes_per_cluster >= inis_per_cluster)
            for (int k = 0; k < inis_per_cluster; k++) {
                int served = 0;
                for (int i = 0; i < pes_per_cluster; i++)
                    served += cfg->pes[cl->pes[i]].static_ini == cl->inis[k];
                assert_true(served > 0);
            }
    }
    for (int i = 0; i < cfg->n_inis; i++) {
        assert_int_equal(cfg->inis[i].core, -1);
        assert_true(in_benchmark_range(cfg->inis[i].ip));
        assert_mac(cfg->inis[i].mac, 0x02, 0x00, 0xc6, 0x12, (uint8_t)(i >> 8), (uint8_t)i);
    }
}

static void test_generate_thesis_family(void **state)
{
    /* 16 compute nodes in clusters of 1, 2, 4 and 8, with 1, 2, 4 and 8
     * INIs per cluster (also more INIs than compute nodes). */
    for (int pes_per_cluster = 1; pes_per_cluster <= 8; pes_per_cluster *= 2)
        for (int inis = 1; inis <= 8; inis *= 2) {
            int peers = (16 / pes_per_cluster - 1) * inis;
            check_generated(16 / pes_per_cluster, pes_per_cluster, inis,
                            peers <= INI_MEMIF_MAX_PEERS ? INI_NET_MEMIF : INI_NET_AF_PACKET);
        }
}

/* Issue 17, item 10: memif gives each INI a DPDK port per INI of the other
 * clusters, and DPDK has 32; a machine that needs more is refused by the
 * generator and by the loader, with the reason. */
static void test_memif_port_limit(void **state)
{
    char *text = NULL;
    size_t size = 0;
    char err[512] = "";
    FILE *f = open_memstream(&text, &size);
    assert_int_equal(generate(f, 8, 2, 8, INI_NET_MEMIF, err, sizeof err), -1);
    fclose(f);
    free(text);
    assert_non_null(strstr(err, "56 here, and DPDK has 32"));

    /* The same machine in af_packet mode is fine; switched to memif by
     * hand, the loader refuses it. */
    text = NULL;
    f = open_memstream(&text, &size);
    assert_int_equal(generate(f, 8, 2, 8, INI_NET_AF_PACKET, err, sizeof err), 0);
    fclose(f);
    const char *from = "mode = \"af_packet\"";
    char *at = strstr(text, from);
    assert_non_null(at);
    char *memif = malloc(size + 1);
    assert_non_null(memif);
    snprintf(memif, size + 1, "%.*smode = \"memif\"%s", (int)(at - text), text, at + strlen(from));
    free(text);
    text = memif;
    const char *path = write_file("memif-8x2x8.cfg", text);
    free(text);
    struct ini_config cfg;
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), -1);
    if (!strstr(err, "clusters[0].inis: in memif mode") || !strstr(err, "56, and DPDK has 32"))
        fail_msg("unexpected error: %s", err);
    /* 7 peers x 4 INIs = 28: still fine. */
    check_generated(8, 2, 4, INI_NET_MEMIF);
}

static void test_generate_other_shapes(void **state)
{
    check_generated(2, 2, 1, INI_NET_AF_PACKET);
    check_generated(3, 5, 3, INI_NET_MEMIF);   /* uneven blocks: 2, 2, 1 */
    check_generated(1, INI_MAX_PES_PER_CLUSTER, INI_MAX_INIS_PER_CLUSTER, INI_NET_MEMIF);
    check_generated(INI_MAX_CLUSTERS, INI_MAX_PES / INI_MAX_CLUSTERS,
                    INI_MAX_INIS / INI_MAX_CLUSTERS, INI_NET_AF_PACKET);   /* the largest machine */
}

static void test_generate_rejects(void **state)
{
    struct { int clusters, pes, inis; enum ini_net_mode mode; const char *message; } bad[] = {
        { 0, 2, 1, INI_NET_MEMIF, "clusters: 0 is out of range 1..64" },
        { 65, 1, 1, INI_NET_MEMIF, "clusters: 65" },
        { 2, 0, 1, INI_NET_MEMIF, "compute nodes per cluster: 0" },
        { 2, 65, 1, INI_NET_MEMIF, "compute nodes per cluster: 65" },
        { 2, 2, 0, INI_NET_MEMIF, "INIs per cluster: 0" },
        { 2, 2, 17, INI_NET_MEMIF, "INIs per cluster: 17" },
        { 64, 5, 1, INI_NET_MEMIF, "320 compute nodes, at most 256" },
        { 16, 1, 9, INI_NET_MEMIF, "144 INIs, at most 128" },
        { 2, 2, 1, INI_NET_PCI, "pci mode" },
        { 2, 2, 1, (enum ini_net_mode)7, "unknown network mode" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        char err[256] = "";
        assert_int_equal(generate(f, bad[i].clusters, bad[i].pes, bad[i].inis, bad[i].mode,
                                             err, sizeof err), -1);
        fclose(f);
        if (!strstr(err, bad[i].message))
            print_error("generate %d %d %d: got \"%s\", expected \"%s\"\n", bad[i].clusters,
                        bad[i].pes, bad[i].inis, err, bad[i].message);
        assert_non_null(strstr(err, bad[i].message));
        assert_int_equal(size, 0);   /* nothing written for refused arguments */
        free(text);
    }
    char err[64];
    assert_int_equal(generate(NULL, 1, 1, 1, INI_NET_MEMIF, err, sizeof err), -1);
}

/* ---- names -------------------------------------------------------------- */

static void test_names(void **state)
{
    assert_string_equal(ini_net_mode_name(INI_NET_MEMIF), "memif");
    assert_string_equal(ini_net_mode_name(INI_NET_AF_PACKET), "af_packet");
    assert_string_equal(ini_net_mode_name(INI_NET_PCI), "pci");
    assert_string_equal(ini_idle_mode_name(INI_IDLE_POLL), "poll");
    assert_string_equal(ini_idle_mode_name(INI_IDLE_ADAPTIVE), "adaptive");
    assert_string_equal(ini_idle_mode_name(INI_IDLE_AUTO), "auto");
    assert_string_equal(ini_trace_mode_name(INI_TRACE_OFF), "off");
    assert_string_equal(ini_trace_mode_name(INI_TRACE_SUMMARY), "summary");
    assert_string_equal(ini_trace_mode_name(INI_TRACE_DETAILED), "detailed");
    assert_string_equal(ini_policy_name(INI_POLICY_STATIC), "static");
    assert_string_equal(ini_policy_name(INI_POLICY_ROUND_ROBIN), "round-robin");
    assert_string_equal(ini_policy_name(INI_POLICY_LOAD_AWARE), "load-aware");
    assert_string_equal(ini_policy_name((enum ini_policy)42), "?");
    assert_string_equal(ini_net_mode_name((enum ini_net_mode)-1), "?");

    for (int p = INI_POLICY_STATIC; p <= INI_POLICY_LOAD_AWARE; p++)
        assert_int_equal(ini_policy_parse(ini_policy_name((enum ini_policy)p)), p);
    assert_int_equal(ini_policy_parse("round_robin"), -1);
    assert_int_equal(ini_policy_parse(""), -1);
    assert_int_equal(ini_policy_parse(NULL), -1);
}

/* Hosts and devices: a machine across hosts (docs/config.md). */
#define TWO_HOSTS(mode, dev0, dev1) \
    "version = 1;\nnetwork = { mode = \"" mode "\"; };\n" \
    "clusters = ( { id = 0; host = \"h0\"; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\";" dev0 " } ); },\n" \
    "  { id = 1; host = \"root@h1.example\"; pes = [1]; inis = ( { id = 1; ip = \"198.18.0.2\";" dev1 " } ); } );\n"

static void test_hosts_and_devices(void **state)
{
    struct ini_config cfg;
    char err[512];
    const char *path = write_file("hosts.cfg", TWO_HOSTS("af_packet", " device = \"eth1\";", " device = \"0000:03:00.1\";"));
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), 0);
    assert_string_equal(cfg.clusters[0].host, "h0");
    assert_string_equal(cfg.clusters[1].host, "root@h1.example");
    assert_string_equal(cfg.inis[0].device, "eth1");
    assert_string_equal(cfg.inis[1].device, "0000:03:00.1");
    assert_int_equal(ini_config_has_hosts(&cfg), 1);
    assert_int_equal(cfg.eal_hugepages, INI_HUGE_AUTO);

    assert_true(ini_device_is_pci("0000:03:00.1"));
    assert_true(ini_device_is_pci("03:00.7"));
    assert_false(ini_device_is_pci("03:00.8"));
    assert_false(ini_device_is_pci("eth0"));
    assert_false(ini_device_is_pci("000g:03:00.1"));

    /* pci mode: device instead of devargs */
    path = write_file("hosts.cfg", TWO_HOSTS("pci", " device = \"0000:03:00.0\";", " device = \"0000:03:00.0\";"));
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), 0);

    int failures = 0;
    failures += check_rejected("memif across hosts", write_file("bad.cfg", TWO_HOSTS("memif", "", "")), 4,
                               "clusters[1].host", "memif joins the INIs of one host");
    failures += check_rejected("af_packet across hosts without device",
                               write_file("bad.cfg", TWO_HOSTS("af_packet", " device = \"eth1\";", "")), 4,
                               "clusters[1].inis[0].device", "missing");
    failures += check_rejected("bad device", write_file("bad.cfg", TWO_HOSTS("af_packet", " device = \"eth 1\";", "")), 3,
                               "clusters[0].inis[0].device", "neither a PCI address");
    failures += check_rejected("interface name too long",
                               write_file("bad.cfg", TWO_HOSTS("af_packet", " device = \"a234567890123456\";", "")), 3,
                               "clusters[0].inis[0].device", "neither a PCI address");
    failures += check_rejected("bad host",
                               write_file("bad.cfg", "version = 1;\nclusters = ( { id = 0; host = \"a;b\"; pes = [0]; "
                                          "inis = ( { id = 0; ip = \"198.18.0.1\"; } ); } );\n"), 2,
                               "clusters[0].host", "not a host name");
    failures += check_rejected("pci without device or devargs",
                               write_file("bad.cfg", TWO_HOSTS("pci", "", "")), 3,
                               "clusters[0].inis[0].devargs", "devargs or device");
    failures += check_rejected("hugepages", write_file("bad.cfg", "version = 1;\neal = { hugepages = \"maybe\"; };\n"
                               "clusters = ( { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); } );\n"), 2,
                               "eal.hugepages", "expected auto, yes or no");
    assert_int_equal(failures, 0);

    /* gen --hosts --device writes a file that loads back with them */
    FILE *f = fopen(write_file("gen.cfg", ""), "w");
    const char *hosts[] = { "h0", "h1" }, *devices[] = { "d0" };
    assert_int_equal(generate_hosts(f, 3, 1, 1, INI_NET_AF_PACKET, hosts, 2, devices, 1, err, sizeof err), 0);
    fclose(f);
    char gen_path[INI_PATH_LEN];
    snprintf(gen_path, sizeof gen_path, "%s/gen.cfg", tmp_dir);
    assert_int_equal(ini_config_load(gen_path, &cfg, err, sizeof err), 0);
    assert_string_equal(cfg.clusters[2].host, "h0");
    assert_string_equal(cfg.inis[1].device, "d0");
    f = fopen(gen_path, "w");
    assert_int_equal(generate_hosts(f, 2, 1, 1, INI_NET_MEMIF, hosts, 2, devices, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "memif"));
    fclose(f);
}

/* The host-dependent EAL choices (ini/daemon/eal_args.h). */
static void test_eal_args(void **state)
{
    struct ini_config cfg;
    char err[512];
    const char *path = write_file("min.cfg", "version = 1;\n"
                                  "clusters = ( { id = 0; pes = [0]; inis = ( { id = 0; ip = \"198.18.0.1\"; } ); } );\n");
    assert_int_equal(ini_config_load(path, &cfg, err, sizeof err), 0);
    char meminfo[INI_PATH_LEN];
    snprintf(meminfo, sizeof meminfo, "%s", write_file("meminfo", "MemTotal: 100 kB\nHugePages_Total: 512\n"
                                                       "HugePages_Free:      200\nHugepagesize:       2048 kB\n"));
    assert_int_equal(ini_eal_hugepages_free_mb(meminfo), 400);
    assert_int_equal(ini_eal_use_hugepages(&cfg, NULL, 0, meminfo), 1);        /* 400 >= 256 MiB */
    char *no_huge[] = { "--no-huge" };
    assert_int_equal(ini_eal_use_hugepages(&cfg, no_huge, 1, meminfo), 0);   /* asked */
    cfg.eal_memory_mb = 512;
    assert_int_equal(ini_eal_use_hugepages(&cfg, NULL, 0, meminfo), 0);      /* not enough free */
    cfg.eal_hugepages = INI_HUGE_YES;
    assert_int_equal(ini_eal_use_hugepages(&cfg, NULL, 0, meminfo), 1);
    cfg.eal_hugepages = INI_HUGE_AUTO;
    assert_int_equal(ini_eal_hugepages_free_mb(write_file("meminfo0", "HugePages_Free: 0\nHugepagesize: 2048 kB\n")), 0);
    assert_int_equal(ini_eal_hugepages_free_mb("/nonexistent/meminfo"), 0);

    char *a1[] = { "--vdev=net_af_xdp0,iface=eth1" }, *a2[] = { "-a", "0000:03:00.0" }, *a3[] = { "--allow=03:00.0" },
         *a4[] = { "-a0000:03:00.0" }, *a5[] = { "-a" };
    assert_false(ini_eal_allows_pci(a1, 1));
    assert_true(ini_eal_allows_pci(a2, 2));
    assert_true(ini_eal_allows_pci(a3, 1));
    assert_true(ini_eal_allows_pci(a4, 1));
    assert_false(ini_eal_allows_pci(a5, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conf_default),
        cmocka_unit_test(test_conf_af_packet),
        cmocka_unit_test(test_conf_4x2),
        cmocka_unit_test(test_conf_files_use_benchmark_range),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_field),
        cmocka_unit_test(test_include_is_relative_to_the_file),
        cmocka_unit_test(test_include_of_a_non_regular_file),
        cmocka_unit_test(test_invalid_files),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_odd_inputs),
        cmocka_unit_test(test_unreadable),
        cmocka_unit_test(test_error_stays_one_line),
        cmocka_unit_test(test_generate_thesis_family),
        cmocka_unit_test(test_generate_other_shapes),
        cmocka_unit_test(test_generate_rejects),
        cmocka_unit_test(test_memif_port_limit),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_mac_modes),
        cmocka_unit_test(test_hosts_and_devices),
        cmocka_unit_test(test_eal_args),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
