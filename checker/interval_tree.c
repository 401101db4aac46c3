// SPDX-License-Identifier: GPL-2.0
#include "interval_tree.h"

static uint64_t max3(uint64_t a, const struct itree_node *l,
		     const struct itree_node *r)
{
	if (l && l->max_end > a)
		a = l->max_end;
	if (r && r->max_end > a)
		a = r->max_end;
	return a;
}

static void fix(struct itree_node *n)
{
	n->max_end = max3(n->end, n->left, n->right);
}

/* Order by start, then by node address so equal starts are distinct. */
static int before(const struct itree_node *a, const struct itree_node *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return (uintptr_t)a < (uintptr_t)b;
}

static struct itree_node *rotate_right(struct itree_node *n)
{
	struct itree_node *l = n->left;

	n->left = l->right;
	l->right = n;
	fix(n);
	fix(l);
	return l;
}

static struct itree_node *rotate_left(struct itree_node *n)
{
	struct itree_node *r = n->right;

	n->right = r->left;
	r->left = n;
	fix(n);
	fix(r);
	return r;
}

static struct itree_node *insert(struct itree_node *root, struct itree_node *n)
{
	if (!root)
		return n;
	if (before(n, root)) {
		root->left = insert(root->left, n);
		if (root->left->prio > root->prio)
			return rotate_right(root);
	} else {
		root->right = insert(root->right, n);
		if (root->right->prio > root->prio)
			return rotate_left(root);
	}
	fix(root);
	return root;
}

static struct itree_node *merge(struct itree_node *a, struct itree_node *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->prio > b->prio) {
		a->right = merge(a->right, b);
		fix(a);
		return a;
	}
	b->left = merge(a, b->left);
	fix(b);
	return b;
}

static struct itree_node *remove_node(struct itree_node *root,
				      struct itree_node *n)
{
	if (!root)
		return NULL;
	if (root == n)
		return merge(n->left, n->right);
	if (before(n, root))
		root->left = remove_node(root->left, n);
	else
		root->right = remove_node(root->right, n);
	fix(root);
	return root;
}

void itree_init(struct itree *t)
{
	t->root = NULL;
	t->count = 0;
	t->rng = 0x9e3779b9u;
}

void itree_insert(struct itree *t, struct itree_node *n)
{
	/* xorshift32: priorities only need to look random */
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 17;
	t->rng ^= t->rng << 5;
	n->prio = t->rng;
	n->left = n->right = NULL;
	n->max_end = n->end;
	t->root = insert(t->root, n);
	t->count++;
}

void itree_remove(struct itree *t, struct itree_node *n)
{
	t->root = remove_node(t->root, n);
	n->left = n->right = NULL;
	t->count--;
}

static void query(struct itree_node *n, uint64_t start, uint64_t end,
		  void (*fn)(struct itree_node *, void *), void *arg)
{
	while (n && n->max_end > start) {
		query(n->left, start, end, fn, arg);
		if (n->start >= end)
			return;		/* everything to the right starts later */
		if (n->end > start)
			fn(n, arg);
		n = n->right;
	}
}

void itree_query(const struct itree *t, uint64_t start, uint64_t end,
		 void (*fn)(struct itree_node *n, void *arg), void *arg)
{
	if (start < end)
		query(t->root, start, end, fn, arg);
}
