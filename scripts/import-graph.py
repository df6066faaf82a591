#!/usr/bin/env python3
"""The import graph of src/: which file uses which (`use crate::…`,
`super::…`), and the rules the layout keeps. Prints the folder edges; exits
1 if a rule is broken:

- no circle of files, and none of folders;
- storage/ imports only domain/ and error.rs;
- sync/ imports only domain/, json/ and error.rs (never agent/: the agent
  will use sync, as it uses storage);
- wasm/books/ and wasm/local/ (the books module and the local decoder, each
  shipped as a wasm module of its own) never import wasm/page/ (the page's
  module);
- only web/ and wasm/ name js_sys, web_sys or wasm_bindgen;
- the core's only `cfg(target_arch)` are module declarations;
- retrieval/'s stages import only the stages before them in RETRIEVAL_STAGES
  (and none the files on retrieval/'s top, which gather them).

`python3 scripts/import-graph.py [src]`
"""
import os
import re
import sys
from collections import defaultdict

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'src')
BROWSER = ('web', 'wasm')
# retrieval/'s stages, lowest first: each may import only those before it.
RETRIEVAL_STAGES = ['text', 'vectors', 'formats', 'index', 'embed', 'lexical', 'ingest', 'library', 'reader']


def modules(root):
    """Module path (tuple) -> file, for every .rs file under root."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith('.rs'):
                path = os.path.join(folder, name)
                parts = tuple(os.path.relpath(path, root)[:-3].split('/'))
                if parts[-1] in ('mod', 'lib'):
                    parts = parts[:-1]
                found[parts] = path
    return found


def code(path):
    """The file's text without line comments (doc comments name other modules)."""
    return re.sub(r'//[^\n]*', '', open(path, encoding='utf-8').read())


def used_names(group):
    """The first name of each item in `{a, b::c, d}` or a single name."""
    if not group.startswith('{'):
        return [group]
    items, depth, current = [], 0, ''
    for ch in group[1:-1]:
        depth += ch == '{'
        depth -= ch == '}'
        if ch == ',' and depth == 0:
            items.append(current)
            current = ''
        else:
            current += ch
    items.append(current)
    return [re.findall(r'\w+', item)[0] for item in items if re.findall(r'\w+', item)]


def edges(found):
    """Module -> the modules it uses (the longest known prefix of each path)."""
    def resolve(path):
        for n in range(len(path), 0, -1):
            if tuple(path[:n]) in found:
                return tuple(path[:n])
        return None

    graph = defaultdict(set)
    for module, path in found.items():
        text = code(path)
        refs = []
        for m in re.finditer(r'crate::((?:\w+::)*)(\{[^;]*?\}|\w+)', text):
            refs.append(([p for p in m.group(1).split('::') if p], m.group(2)))
        for m in re.finditer(r'(?<![\w:])(super(?:::super)*)::((?:\w+::)*)(\{[^;]*?\}|\w+)', text):
            base = list(module)[:len(module) - m.group(1).count('super')]
            refs.append((base + [p for p in m.group(2).split('::') if p], m.group(3)))
        for prefix, group in refs:
            for name in used_names(group):
                target = resolve(prefix + [name])
                if target and target != module:
                    graph[module].add(target)
    return graph


def circles(nodes, graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted('/'.join(x) for x in component))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def stage_breaks(graph):
    """Imports from a retrieval stage to a later stage, or to retrieval/'s top."""
    def stage(module):
        if len(module) >= 2 and module[0] == 'retrieval':
            return module[1] if module[1] in RETRIEVAL_STAGES else 'top'
        return None
    out = []
    for a, bs in sorted(graph.items()):
        sa = stage(a)
        if sa in (None, 'top'):
            continue
        for b in sorted(bs):
            sb = stage(b)
            if sb is None or sb == sa:
                continue
            if sb == 'top' or RETRIEVAL_STAGES.index(sb) > RETRIEVAL_STAGES.index(sa):
                out.append(f"retrieval/{sa}/ imports a later stage: {'/'.join(a)} -> {'/'.join(b)}")
    return out


def main():
    found = modules(ROOT)
    graph = edges(found)
    # A parent module and its children (re-exports, `mod` lines) are one place.
    files = {a: {b for b in bs if b[:len(a)] != a and a[:len(b)] != b} for a, bs in graph.items()}
    folders = defaultdict(set)
    for a, bs in graph.items():
        for b in bs:
            if a and b and a[0] != b[0]:
                folders[a[0]].add(b[0])
    broken = []
    broken += [f'file circle: {c}' for c in circles(list(found), files)]
    broken += [f'folder circle: {c}' for c in circles(list(folders), folders)]
    storage = folders.get('storage', set()) - {'domain', 'error'}
    if storage:
        broken.append(f'storage/ imports {sorted(storage)}')
    synced = folders.get('sync', set()) - {'domain', 'json', 'error'}
    if synced:
        broken.append(f'sync/ imports {sorted(synced)}')
    broken += stage_breaks(graph)
    # The page's module loads the books module, never the other way round; the
    # local decoder stands alone: code of theirs that used the page's would
    # build only with the `page` feature on.
    for module, targets in sorted(graph.items()):
        if module[:2] in (('wasm', 'books'), ('wasm', 'local')):
            for target in sorted(targets):
                if target[:2] == ('wasm', 'page'):
                    broken.append(f'{"/".join(module)} imports {"/".join(target)}: '
                                  f'wasm/{module[1]}/ never imports wasm/page/ (the page\'s module)')
    for module, path in sorted(found.items()):
        if module and module[0] in BROWSER:
            continue
        text = code(path)
        if re.search(r'\b(js_sys|web_sys|wasm_bindgen)\b', text):
            broken.append(f'{path} names a browser crate')
        for m in re.finditer(r'#\[cfg(?:_attr)?\([^\n]*target_arch[^\n]*\]\s*\n\s*(#\[[^\n]*\]\s*\n\s*)*([^\n]*)', text):
            line = m.group(2).strip()
            if not re.match(r'(pub(\([^)]*\))? )?(mod|use) ', line):
                broken.append(f'{path}: cfg(target_arch) on `{line[:40]}`, not a module declaration')
    for folder in sorted(folders):
        print(f'{folder} -> {", ".join(sorted(folders[folder]))}')
    for line in broken:
        print(f'BROKEN: {line}')
    print(f'{len(found)} files, {sum(len(b) for b in files.values())} file edges, {len(broken)} broken rules')
    sys.exit(1 if broken else 0)


main()
