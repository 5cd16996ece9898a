/*
 * config_values.c - the defaults of the configuration, the values derived
 * from it, and the syntax of the single values the loader and the programs
 * both check (config.h).  The defaults are written once, here: the loader
 * starts from them and `ini-cluster gen` writes them out.
 */
#include "config.h"
#include "stack_defaults.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Per mbuf beyond its data room: the rte_mbuf (128), our private area and
 * the mempool's object header, rounded up; and the rest of a daemon's EAL
 * memory (measured: 96 MiB runs MTU 1500, 64 MiB does not). */
#define MBUF_OVERHEAD_BYTES   256
#define EAL_MARGIN_MB         64

/* The default MAC rule: a locally administered prefix 02:00 followed by
 * c6:12 (198.18, the RFC 2544 benchmark range the generator's addresses
 * come from). */
#define MAC_PREFIX            0x02, 0x00, 0xc6, 0x12

void ini_config_defaults(struct ini_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->net_mode = INI_NET_MEMIF;
    snprintf(cfg->bridge, sizeof cfg->bridge, "%s", "inibr0");
    cfg->pe_policy = INI_POLICY_STATIC;
    cfg->ini_policy = INI_POLICY_STATIC;
    /* The transport's defaults are the stack's own (stack_defaults.h). */
    struct ini_swp_defaults swp = ini_swp_defaults();
    cfg->stack = (struct ini_stack_cfg){
        .mtu = swp.mtu, .window = swp.window, .seq_bits = swp.seq_bits,
        .send_timeout_us = swp.send_timeout_us, .ack_timeout_us = swp.ack_timeout_us,
        .max_message = INI_MAX_MESSAGE_LIMIT, .nak = swp.nak, .segmentation = swp.segment,
    };
    cfg->idle = (struct ini_idle_cfg){ .mode = INI_IDLE_AUTO, .spin_us = 5, .max_sleep_us = 1000,
                                       .yield_us = INI_IDLE_YIELD_US_DEFAULT,
                                       .colocate = INI_IDLE_COLOCATE_DEFAULT };
    cfg->trace = (struct ini_trace_cfg){ .mode = INI_TRACE_OFF, .records = 1048576 };
    cfg->eal_memory_mb = 256;
    cfg->ring_bytes = INI_RING_BYTES_DEFAULT;
    cfg->restart = (struct ini_restart_cfg){ .max = INI_RESTART_MAX_DEFAULT,
                                             .window_s = INI_RESTART_WINDOW_S_DEFAULT };
    ini_fault_defaults(&cfg->faults);
}

int ini_config_mbuf_room(int mtu)
{
    return ini_stack_mbuf_room(mtu);
}

int ini_config_eal_memory_needed_mb(int mtu)
{
    long long pool = (long long)INI_STACK_MBUFS * (ini_config_mbuf_room(mtu) + MBUF_OVERHEAD_BYTES);
    return (int)((pool + (1 << 20) - 1) >> 20) + EAL_MARGIN_MB;
}

/* 02:00:c6:12:HI:LO, HI and LO being the bytes of the INI id. */
void ini_config_default_mac(int ini_id, uint8_t mac[6])
{
    const uint8_t prefix[4] = { MAC_PREFIX };
    memcpy(mac, prefix, sizeof prefix);
    mac[4] = (uint8_t)(ini_id >> 8);
    mac[5] = (uint8_t)ini_id;
}

/* ---- hosts and devices (the machine across hosts) ---- */

int ini_config_has_hosts(const struct ini_config *cfg)
{
    for (int c = 0; c < cfg->n_clusters; c++)
        if (cfg->clusters[c].host[0])
            return 1;
    return 0;
}

int ini_device_is_pci(const char *device)
{
    /* [DOMAIN:]BUS:DEVICE.FUNCTION: 0000:03:00.0 or 03:00.0 */
    size_t n = strlen(device);
    const char *p = n == 12 ? device + 5 : n == 7 ? device : NULL;
    if (!p || (n == 12 && device[4] != ':'))
        return 0;
    for (size_t i = 0; i < (size_t)(p - device) - (n == 12); i++)
        if (!isxdigit((unsigned char)device[i]))
            return 0;
    return isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) && p[2] == ':' &&
           isxdigit((unsigned char)p[3]) && isxdigit((unsigned char)p[4]) && p[5] == '.' &&
           p[6] >= '0' && p[6] <= '7';
}

/* A Linux interface name: 1..15 characters, none of them '/', ':' or a
 * space; we take the portable subset: letters, digits, '_', '-', '.'. */
int ini_device_is_iface(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 15 || !strcmp(name, ".") || !strcmp(name, ".."))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("_-.", name[i]))
            return 0;
    return 1;
}

int ini_key_file_read(const char *path, uint8_t key[INI_KEY_LEN], char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO named here must not block the reader. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    if (fstat(fd, &st) < 0)
        snprintf(err, errlen, "cannot stat %s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(err, errlen, "%s is not a regular file", path);
    else if (st.st_size != INI_KEY_LEN)
        snprintf(err, errlen, "%s holds %lld bytes, a key is exactly %d random bytes "
                 "(head -c %d /dev/urandom > FILE; chmod 600 FILE)", path, (long long)st.st_size, INI_KEY_LEN,
                 INI_KEY_LEN);
    else if (st.st_mode & (S_IROTH | S_IWOTH))
        snprintf(err, errlen, "%s is readable or writable by others (mode %03o): chmod 600 it", path,
                 (unsigned)(st.st_mode & 0777));
    else if (read(fd, key, INI_KEY_LEN) != INI_KEY_LEN)
        snprintf(err, errlen, "cannot read %d bytes from %s", INI_KEY_LEN, path);
    else
        rc = 0;
    close(fd);
    return rc;
}

