/*
 * xsk_queue.c - an AF_XDP pool bound to a device queue, or not
 * (xsk_queue.h): one generic-netlink exchange to resolve the "netdev"
 * family, one queue-get.  Called only while a port is being reopened.
 */
#include "xsk_queue.h"

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

/* The netdev family's numbers (the kernel's
 * Documentation/netlink/specs/netdev.yaml, an ABI); this system's
 * headers predate its queue commands. */
#define NETDEV_CMD_QUEUE_GET_NR   10
#define NETDEV_A_QUEUE_ID_NR      1
#define NETDEV_A_QUEUE_IFINDEX_NR 2
#define NETDEV_A_QUEUE_TYPE_NR    3
#define NETDEV_A_QUEUE_XSK_NR     7
#define NETDEV_QUEUE_TYPE_RX_NR   0

struct genl_req {
    struct nlmsghdr n;
    struct genlmsghdr g;
    char attrs[64];
};

static void put_attr(struct nlmsghdr *n, unsigned short type, const void *data, unsigned short len)
{
    struct nlattr *a = (struct nlattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));
    a->nla_type = type;
    a->nla_len = (unsigned short)(NLA_HDRLEN + len);
    memcpy((char *)a + NLA_HDRLEN, data, len);
    n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void start(struct genl_req *q, uint16_t family, uint8_t cmd)
{
    memset(q, 0, sizeof(*q));
    q->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
    q->n.nlmsg_type = family;
    q->n.nlmsg_flags = NLM_F_REQUEST;
    q->g.cmd = cmd;
    q->g.version = 1;
}

/* Sends q and reads the answer into reply: the message, or NULL for an
 * error answer or none. */
static struct nlmsghdr *exchange(int fd, struct genl_req *q, char *reply, size_t len)
{
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
    if (sendto(fd, &q->n, q->n.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof sa) < 0)
        return NULL;
    ssize_t r = recv(fd, reply, len, 0);
    struct nlmsghdr *h = (struct nlmsghdr *)reply;
    if (r < (ssize_t)NLMSG_HDRLEN || !NLMSG_OK(h, (unsigned)r) || h->nlmsg_type == NLMSG_ERROR)
        return NULL;
    return h;
}

/* A top-level attribute of a generic-netlink message, or NULL. */
static const struct nlattr *find_attr(const struct nlmsghdr *h, unsigned short type)
{
    const char *p = (const char *)NLMSG_DATA(h) + GENL_HDRLEN, *end = (const char *)h + h->nlmsg_len;
    while (p + NLA_HDRLEN <= end) {
        const struct nlattr *a = (const struct nlattr *)p;
        if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
            break;
        if ((a->nla_type & NLA_TYPE_MASK) == type)
            return a;
        p += NLA_ALIGN(a->nla_len);
    }
    return NULL;
}

int ini_xsk_queue_bound(unsigned ifindex, unsigned queue)
{
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
    if (fd < 0)
        return -1;
    struct genl_req q;
    char reply[4096] __attribute__((aligned(4)));
    int rc = -1;
    start(&q, GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
    put_attr(&q.n, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof "netdev");
    const struct nlmsghdr *h = exchange(fd, &q, reply, sizeof reply);
    const struct nlattr *fam = h ? find_attr(h, CTRL_ATTR_FAMILY_ID) : NULL;
    if (fam && fam->nla_len >= NLA_HDRLEN + sizeof(uint16_t)) {
        uint16_t id;
        uint32_t v;
        memcpy(&id, (const char *)fam + NLA_HDRLEN, sizeof id);
        start(&q, id, NETDEV_CMD_QUEUE_GET_NR);
        v = ifindex;
        put_attr(&q.n, NETDEV_A_QUEUE_IFINDEX_NR, &v, sizeof v);
        v = NETDEV_QUEUE_TYPE_RX_NR;
        put_attr(&q.n, NETDEV_A_QUEUE_TYPE_NR, &v, sizeof v);
        v = queue;
        put_attr(&q.n, NETDEV_A_QUEUE_ID_NR, &v, sizeof v);
        if ((h = exchange(fd, &q, reply, sizeof reply)) != NULL && find_attr(h, NETDEV_A_QUEUE_ID_NR))
            rc = find_attr(h, NETDEV_A_QUEUE_XSK_NR) != NULL;
    }
    close(fd);
    return rc;
}
