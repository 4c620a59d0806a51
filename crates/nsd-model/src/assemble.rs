//! `Model` → `System`: numbers the DOFs, assembles sparse M, C, K from triplets, collects
//! excitation and base coupling, and localises the nonlinear elements on the DOFs.

use super::beam;
use super::flat::*;
use super::graph::SystemGraph;
use super::system::*;
use rustc_hash::FxHashMap as HashMap;
use sprs::{CsMat, TriMat};

/// Assembles the system of a resolved model (contacts open: gaps and friction are not in K).
pub fn assemble(model: &Model) -> System {
    let (dofs, index) = number_dofs(model);
    let n = dofs.len();
    let mut a = Assembler {
        n,
        index,
        m: TriMat::new((n, n)),
        k: TriMat::new((n, n)),
        c: TriMat::new((n, n)),
        base_k: HashMap::default(),
        base_c: HashMap::default(),
    };
    let mut static_load = vec![0.0; n];
    let g = model.gravity.unwrap_or([0.0; 3]);
    a.masses(model, &dofs, g, &mut static_load);
    let nonlinear = model
        .elements
        .iter()
        .filter_map(|el| a.element(model, el, g, &mut static_load))
        .collect();

    let m = csr(&a.m);
    let k = csr(&a.k);
    let mut c = csr(&a.c);
    if let Some(r) = model.damping {
        let am = m.map(|v| r.alpha * v);
        let bk = k.map(|v| r.beta * v);
        c = &(&c + &am) + &bk;
    }
    let forces = dof_forces(model, &a.index);
    let base = model
        .base
        .iter()
        .map(|b| BaseInput {
            dir: b.dir,
            y: b.y.clone(),
            stiffness: sorted(a.base_k.get(&b.dir)),
            damping: sorted(a.base_c.get(&b.dir)),
        })
        .collect();

    let mut warnings = SystemGraph::build(model).floating_warnings(model);
    let multibody = model.is_multibody().then(|| multibody(model));
    if n == 0 && multibody.is_none() {
        warnings.push(Warning {
            code: "nsd::model::empty",
            message: "the model has no DOFs (declare a `mass`)".into(),
        });
    }
    System {
        model: model.name.clone(),
        params: model.params.clone(),
        dofs,
        m,
        c,
        k,
        forces,
        base,
        static_load,
        nonlinear,
        multibody,
        warnings,
    }
}

/// The DOFs in node order, each free direction of a mass, beam node or substructure
/// (supports and rigid bodies carry none), and their index by node and direction.
fn number_dofs(model: &Model) -> (Vec<Dof>, DofIndex) {
    let mut dofs = Vec::new();
    let mut index = DofIndex {
        range: vec![(0, 0); model.nodes.len()],
        dirs: Vec::new(),
    };
    for (i, node) in model.nodes.iter().enumerate() {
        if node.is_support() || matches!(node.kind, NodeKind::Body(_)) {
            continue;
        }
        for &d in &node.dirs {
            if !node.fixed.contains(&d) {
                index.insert(NodeId(i), d, dofs.len());
                dofs.push(Dof {
                    name: format!("{}.{d}", node.name),
                    node: NodeId(i),
                    dir: d,
                });
            }
        }
    }
    (dofs, index)
}

/// The external forces on DOFs; identically zero ones are left out.
fn dof_forces(model: &Model, index: &DofIndex) -> Vec<DofForce> {
    model
        .forces
        .iter()
        // A force that is identically zero (e.g. `Q2 = 0`) costs evaluations and adds nothing.
        .filter(|f| f.f != crate::time_fn::TimeFn::Const(0.0))
        .filter_map(|f| {
            let dir = f.target.dir?;
            Some(DofForce {
                dof: index.get(f.target.node, dir)?,
                f: f.f.clone(),
            })
        })
        .collect()
}

/// Triplets → CSR with duplicates summed: a counting sort by row, then a sort of each
/// (short) row by column. Several times faster than sprs' general conversion on the
/// 100k-DOF chains of the benchmarks.
fn csr(t: &TriMat<f64>) -> CsMat<f64> {
    let (rows, cols) = t.shape();
    let mut indptr = vec![0usize; rows + 1];
    for &r in t.row_inds() {
        indptr[r + 1] += 1;
    }
    for r in 0..rows {
        indptr[r + 1] += indptr[r];
    }
    let mut next = indptr.clone();
    let mut entries = vec![(0usize, 0.0f64); t.nnz()];
    for ((&r, &c), &v) in t.row_inds().iter().zip(t.col_inds()).zip(t.data()) {
        entries[next[r]] = (c, v);
        next[r] += 1;
    }
    let (mut out_ptr, mut indices, mut data) = (
        Vec::with_capacity(rows + 1),
        Vec::with_capacity(t.nnz()),
        Vec::with_capacity(t.nnz()),
    );
    out_ptr.push(0);
    for r in 0..rows {
        let row = &mut entries[indptr[r]..indptr[r + 1]];
        row.sort_unstable_by_key(|e| e.0);
        for &(c, v) in row.iter() {
            if indices.len() > *out_ptr.last().unwrap_or(&0) && indices.last() == Some(&c) {
                *data.last_mut().expect("a column was pushed") += v;
            } else {
                indices.push(c);
                data.push(v);
            }
        }
        out_ptr.push(indices.len());
    }
    CsMat::new((rows, cols), out_ptr, indices, data)
}

fn sorted(v: Option<&HashMap<usize, f64>>) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64)> = v
        .map(|m| m.iter().map(|(i, x)| (*i, *x)).collect())
        .unwrap_or_default();
    out.sort_by_key(|(i, _)| *i);
    out
}

fn multibody(model: &Model) -> Multibody {
    let mut body_index = HashMap::default();
    let mut bodies = Vec::new();
    for (i, node) in model.nodes.iter().enumerate() {
        if let NodeKind::Body(b) = &node.kind {
            body_index.insert(NodeId(i), bodies.len());
            bodies.push((node.name.clone(), *b));
        }
    }
    let joints = model
        .elements
        .iter()
        .filter_map(|e| match &e.kind {
            ElementKind::Joint(j) => Some((
                e.name.clone(),
                j.clone(),
                body_index.get(&e.a.node).copied(),
                body_index.get(&e.b.node).copied(),
            )),
            _ => None,
        })
        .collect();
    Multibody {
        bodies,
        joints,
        gravity: model.gravity.unwrap_or([0.0; 3]),
    }
}

/// DOF numbers by (node, direction): each node's DOFs are consecutive, `range[node]` is
/// their span in `dirs` (a node has at most a handful of directions, so a scan beats hashing).
struct DofIndex {
    range: Vec<(usize, usize)>,
    dirs: Vec<Dir>,
}

impl DofIndex {
    fn insert(&mut self, node: NodeId, dir: Dir, dof: usize) {
        debug_assert_eq!(dof, self.dirs.len());
        let r = &mut self.range[node.0];
        if r.0 == r.1 {
            *r = (dof, dof);
        }
        r.1 = dof + 1;
        self.dirs.push(dir);
    }

    fn get(&self, node: NodeId, dir: Dir) -> Option<usize> {
        let (start, end) = *self.range.get(node.0)?;
        (start..end).find(|&i| self.dirs[i] == dir)
    }
}

#[derive(Clone, Copy)]
enum Matrix {
    M,
    K,
    C,
}

struct Assembler {
    n: usize,
    index: DofIndex,
    m: TriMat<f64>,
    k: TriMat<f64>,
    c: TriMat<f64>,
    /// Base coupling per base direction: DOF → summed coefficient.
    base_k: HashMap<Dir, HashMap<usize, f64>>,
    base_c: HashMap<Dir, HashMap<usize, f64>>,
}

impl Assembler {
    /// The point masses on the diagonal of M, and their weight in the static load.
    fn masses(&mut self, model: &Model, dofs: &[Dof], g: [f64; 3], load: &mut [f64]) {
        for (i, d) in dofs.iter().enumerate() {
            let node = model.node(d.node);
            if node.kind == NodeKind::Mass {
                self.m.add_triplet(i, i, node.mass);
                if let Some(ax) = d.dir.axis() {
                    load[i] += node.mass * g[ax];
                }
            }
        }
    }

    /// Adds one element's linear part to M, C, K (and a beam's weight to the static load);
    /// returns its nonlinear part, localised on the DOFs, if it has one.
    fn element(
        &mut self,
        model: &Model,
        el: &Element,
        g: [f64; 3],
        load: &mut [f64],
    ) -> Option<NonlinearElement> {
        match &el.kind {
            ElementKind::Spring { k, k2, k3 } => {
                self.two_node(model, el, *k, Matrix::K);
                (*k2 != 0.0 || *k3 != 0.0).then(|| {
                    self.localise(model, el, Nonlinearity::Polynomial { k2: *k2, k3: *k3 })
                })
            }
            ElementKind::Damper { c } => {
                self.two_node(model, el, *c, Matrix::C);
                None
            }
            ElementKind::Gap(gap) => Some(self.localise(model, el, Nonlinearity::Gap(*gap))),
            ElementKind::Friction(f) => Some(self.localise(model, el, Nonlinearity::Friction(*f))),
            ElementKind::Beam(seg) => {
                self.beam(el, seg, g, load);
                None
            }
            ElementKind::Matrices(sub) => {
                self.substructure(el, sub);
                None
            }
            ElementKind::Joint(_) => None,
        }
    }

    /// An imported substructure's M, K, C triplets on the DOFs of its node.
    fn substructure(&mut self, el: &Element, sub: &Substructure) {
        let ids: Vec<Option<usize>> = (0..sub.size)
            .map(|j| self.index.get(el.a.node, Dir::Index(j as u32 + 1)))
            .collect();
        for (mat, trip) in [
            (Matrix::M, &sub.m),
            (Matrix::K, &sub.k),
            (Matrix::C, &sub.c),
        ] {
            for &(r, c, v) in trip.iter() {
                if let (Some(i), Some(j)) = (ids[r], ids[c]) {
                    self.add(mat, i, j, v);
                }
            }
        }
    }

    fn add(&mut self, mat: Matrix, i: usize, j: usize, v: f64) {
        debug_assert!(i < self.n && j < self.n);
        match mat {
            Matrix::M => self.m.add_triplet(i, j, v),
            Matrix::K => self.k.add_triplet(i, j, v),
            Matrix::C => self.c.add_triplet(i, j, v),
        }
    }

    fn attach(&self, model: &Model, e: Endpoint) -> Attach {
        let dir = e.dir.unwrap_or(Dir::X);
        match model.node(e.node).kind {
            NodeKind::Ground => Attach::Ground,
            NodeKind::Base => Attach::Base(dir),
            _ => self
                .index
                .get(e.node, dir)
                .map_or(Attach::Ground, Attach::Dof),
        }
    }

    /// A linear two-node element of coefficient `v` on `u = x_a − x_b`.
    fn two_node(&mut self, model: &Model, el: &Element, v: f64, mat: Matrix) {
        if v == 0.0 {
            return;
        }
        let (a, b) = (self.attach(model, el.a), self.attach(model, el.b));
        for (p, q) in [(a, b), (b, a)] {
            if let Attach::Dof(i) = p {
                self.add(mat, i, i, v);
                match q {
                    Attach::Dof(j) => self.add(mat, i, j, -v),
                    Attach::Base(d) => {
                        let table = if matches!(mat, Matrix::K) {
                            &mut self.base_k
                        } else {
                            &mut self.base_c
                        };
                        *table.entry(d).or_default().entry(i).or_insert(0.0) += v;
                    }
                    Attach::Ground => {}
                }
            }
        }
    }

    fn localise(&self, model: &Model, el: &Element, law: Nonlinearity) -> NonlinearElement {
        let side = |e: Endpoint| -> Vec<Attach> {
            match &el.kind {
                ElementKind::Friction(Friction::Contact2d {
                    tangent, normal, ..
                }) => [*tangent, *normal]
                    .iter()
                    .map(|d| {
                        self.attach(
                            model,
                            Endpoint {
                                node: e.node,
                                dir: Some(*d),
                            },
                        )
                    })
                    .collect(),
                _ => vec![self.attach(model, e)],
            }
        };
        NonlinearElement {
            name: el.name.clone(),
            law,
            a: side(el.a),
            b: side(el.b),
        }
    }

    fn beam(&mut self, el: &Element, s: &BeamSegment, g: [f64; 3], load: &mut [f64]) {
        let dof = |node: NodeId, d: Dir| self.index.get(node, d);
        let ids = [
            dof(el.a.node, s.transverse),
            dof(el.a.node, s.rotation),
            dof(el.b.node, s.transverse),
            dof(el.b.node, s.rotation),
        ];
        let kb = beam::bending_stiffness(s.ei, s.length);
        let mb = beam::bending_mass(s.rho_a, s.length);
        let q = s.transverse.axis().map_or(0.0, |ax| s.rho_a * g[ax]);
        let fl = beam::uniform_load(q, s.length);
        for r in 0..4 {
            let Some(i) = ids[r] else { continue };
            load[i] += fl[r];
            for c in 0..4 {
                if let Some(j) = ids[c] {
                    self.k.add_triplet(i, j, kb[r][c]);
                    self.m.add_triplet(i, j, mb[r][c]);
                }
            }
        }
        if let (Some(ea), Some(ax)) = (s.ea, s.axial) {
            let (kb, mb) = beam::bar(ea, s.rho_a, s.length);
            let ids = [dof(el.a.node, ax), dof(el.b.node, ax)];
            for r in 0..2 {
                let Some(i) = ids[r] else { continue };
                for c in 0..2 {
                    if let Some(j) = ids[c] {
                        self.k.add_triplet(i, j, kb[r][c]);
                        self.m.add_triplet(i, j, mb[r][c]);
                    }
                }
            }
        }
    }
}
