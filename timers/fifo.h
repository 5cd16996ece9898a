/*
 * fifo.h - the intrusive singly linked FIFO (a head and a tail pointer, the
 * items linked through a field of their own) and the reversal of a list
 * pushed newest first, written once for every layer that keeps one: the
 * timer records of a connection (timers/timer_list.c), MGS's message and
 * request queues and its lock waiters (mgs/).
 *
 * On the ground floor with the timers so that every floor above may include
 * it.  Macros, not functions: the lists are of different types (a timer
 * record, a message, a request) and the links have different names; a
 * macro keeps each list typed, as BSD's <sys/queue.h> does, and costs
 * nothing on the per-message path.  Each argument is evaluated more than
 * once: pass plain lvalues.
 */
#ifndef INI_FIFO_H
#define INI_FIFO_H

/* Appends item (its link `next` already set or about to be) at the tail
 * of the FIFO whose ends are the lvalues head and tail. */
#define FIFO_APPEND(head, tail, item, next) \
    do {                                    \
        if (tail)                           \
            (tail)->next = (item);          \
        else                                \
            (head) = (item);                \
        (tail) = (item);                    \
    } while (0)

/* Reverses in place the NULL-terminated list starting at the lvalue list,
 * linked through `next`: a stack pushed newest first becomes the list in
 * arrival order. */
#define LIST_REVERSE(list, next)                        \
    do {                                                \
        __typeof__(list) reversed_ = NULL;              \
        while (list) {                                  \
            __typeof__(list) rest_ = (list)->next;      \
            (list)->next = reversed_;                   \
            reversed_ = (list);                         \
            (list) = rest_;                             \
        }                                               \
        (list) = reversed_;                             \
    } while (0)

#endif
