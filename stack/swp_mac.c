/*
 * swp_mac.c - the transport's authentication (swp.h "Strangers refused",
 * docs/transport.md).
 *
 * Hash, then PRF: the bytes behind the tag (the CRC field, 0 under the
 * MAC, and the message; or nothing) go through a polynomial hash over
 * GF(2^128) (POLYVAL's, stack/polyhash.h) under a secret key H of the
 * run (the "inner" sum, 16 bytes); the tag is SipHash-2-4-128 under a
 * second key of the run over
 * the destination INI, the header, the length and the inner sum.  The
 * hash is universal for messages of one length (two different ones
 * collide with probability <= blocks / 2^128 over H), which is all the
 * PRF needs since the length is in its input; it is safe to use with one
 * key for many messages because its result is never shown, only passed
 * through the PRF.  By carry-less multiplication it takes 0.17 TSC cycles
 * a byte where libsodium's Poly1305 (issue 49's first inner hash) took
 * 1.90 in the same conditions (docs/results/mac-fast/).  The inner sum
 * of a message is the same for each of its transmissions, so the sender
 * takes it once, at the first send, and a retransmission (a new ack)
 * costs one SipHash of ~31 bytes.  Under the MAC the CRC and the UDP
 * checksum are left out: the MAC catches every change they would, and
 * they were two more passes over each message (docs/results/mac-nocrc/).
 * docs/transport.md has the argument.
 */
#include "swp_internal.h"

#include <sodium.h>

int ini_swp_authenticated(const struct ini_swp *s)
{
    return s->tag_len != 0;
}

int swp_mac_keys(struct ini_swp *s, const struct ini_swp_params *prm)
{
    /* The run's keys: the machine's key bound to this run's epoch, so
     * that frames recorded in another run (same key, another epoch)
     * fail the MAC. */
    /* v3: under the MAC the CRC and the UDP checksum are left out (v2
     * sent them; v1 had Poly1305 as its inner hash).  Another label gives
     * other keys, so INIs of two versions fail each other's MAC, counted
     * as mac_fail, instead of mis-reading each other's frames. */
    static const uint8_t label[] = "ini swp run keys v3";
    uint8_t keys[INI_POLYHASH_LEN + sizeof(s->tag_key)];
    crypto_generichash_state st;
    if (sodium_init() < 0)
        return -1;
    crypto_generichash_init(&st, prm->key, INI_SWP_KEY_LEN, sizeof(keys));
    crypto_generichash_update(&st, label, sizeof(label));
    crypto_generichash_update(&st, prm->epoch, INI_SWP_EPOCH_LEN);
    crypto_generichash_final(&st, keys, sizeof(keys));
    ini_polyhash_key(&s->hash_key, keys, INI_POLYHASH_VCLMUL);
    memcpy(s->tag_key, keys + INI_POLYHASH_LEN, sizeof(s->tag_key));
    sodium_memzero(keys, sizeof(keys));
    return 0;
}

void swp_mac_forget(struct ini_swp *s)
{
    sodium_memzero(&s->hash_key, sizeof(s->hash_key));
    sodium_memzero(s->tag_key, sizeof(s->tag_key));
}

/* The tag of a frame to `dst` with header hdr and inner sum `inner` of
 * `len` bytes behind the tag. */
void swp_tag_of(const struct ini_swp *s, int dst, const uint8_t *hdr, uint32_t len,
                const uint8_t inner[INI_SWP_TAG_LEN], uint8_t tag[INI_SWP_TAG_LEN])
{
    uint8_t in[1 + INI_SWP_MAXHDR + 4 + INI_SWP_TAG_LEN];
    size_t n = 0;
    in[n++] = (uint8_t)dst;
    memcpy(in + n, hdr, (size_t)s->hdr_len);
    n += (size_t)s->hdr_len;
    memcpy(in + n, &len, 4);
    n += 4;
    memcpy(in + n, inner, INI_SWP_TAG_LEN);
    n += INI_SWP_TAG_LEN;
    crypto_shorthash_siphashx24(tag, in, n, s->tag_key);
}

/* The inner sum of up to two pieces. */
void swp_inner_of(const struct ini_swp *s, const uint8_t *a, size_t la, const uint8_t *b, size_t lb,
                  uint8_t inner[INI_SWP_TAG_LEN])
{
    struct ini_polyhash st;
    ini_polyhash_init(&st, &s->hash_key);
    ini_polyhash_update(&st, a, la);
    ini_polyhash_last(&st, b, lb, inner);
}

/* The inner sum of a DATA frame's CRC field (0) and message, the message
 * copied to dst in the same pass. */
void swp_inner_copy(const struct ini_swp *s, uint8_t *dst, const uint8_t *msg, size_t len,
                    uint8_t inner[INI_SWP_TAG_LEN])
{
    static const uint8_t no_crc[4];
    struct ini_polyhash st;
    ini_polyhash_init(&st, &s->hash_key);
    ini_polyhash_update(&st, no_crc, sizeof(no_crc));
    ini_polyhash_copy_last(&st, dst, msg, len, inner);
}

/* Checks the tag of a received datagram (a pbuf chain) addressed to us. */
int swp_mac_ok(const struct ini_swp *s, const struct pbuf *p)
{
    uint8_t head[INI_SWP_MAXHDR + INI_SWP_TAG_LEN], inner[INI_SWP_TAG_LEN], want[INI_SWP_TAG_LEN];
    uint16_t front = (uint16_t)(s->hdr_len + s->tag_len);
    if (p->tot_len < front || pbuf_copy_partial(p, head, front, 0) != front)
        return 0;
    struct ini_polyhash st;
    ini_polyhash_init(&st, &s->hash_key);
    uint16_t off = front;
    for (const struct pbuf *q = p; q; q = q->next) {
        uint16_t skip = off < q->len ? off : q->len;     /* the front, in this pbuf */
        const uint8_t *b = (const uint8_t *)q->payload + skip;
        size_t n = (size_t)(q->len - skip);
        off = (uint16_t)(off - skip);
        if (!q->next)
            ini_polyhash_last(&st, b, n, inner);     /* a segment: its one piece */
        else
            ini_polyhash_update(&st, b, n);
    }
    swp_tag_of(s, s->me, head, (uint32_t)(p->tot_len - front), inner, want);
    return crypto_verify_16(want, head + s->hdr_len) == 0;
}
