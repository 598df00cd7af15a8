// Only the object writers lazy uses, so the bundle tree-shakes the rest of
// isomorphic-git and commands that never write never load it.
export { writeBlob, writeTree, writeCommit } from 'isomorphic-git';
