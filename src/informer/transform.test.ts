import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kube/types.js';
import {
  chainTransforms,
  declareDropped,
  droppedFields,
  dropLastAppliedConfiguration,
  LAST_APPLIED_ANNOTATION,
  metadataOnly,
  stripManagedFields,
} from './transform.js';

function secret(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 's',
      namespace: 'n',
      resourceVersion: '7',
      annotations: { [LAST_APPLIED_ANNOTATION]: '{"data":{"password":"aHVudGVyMg=="}}', keep: 'me' },
      managedFields: [{ manager: 'kubectl' }],
    },
    data: { password: 'aHVudGVyMg==' },
  };
}

describe('transforms', () => {
  it('the Secret transform chain keeps metadata and loses every copy of the data', () => {
    const out = chainTransforms(metadataOnly, stripManagedFields, dropLastAppliedConfiguration)(secret());
    expect(out).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n', resourceVersion: '7', annotations: { keep: 'me' } } });
    expect(JSON.stringify(out)).not.toContain('aHVudGVyMg==');
  });

  it('dropLastAppliedConfiguration removes an annotations map it empties, and is idempotent', () => {
    const o = secret();
    delete o.metadata.annotations!.keep;
    const once = dropLastAppliedConfiguration(o);
    expect(once.metadata.annotations).toBeUndefined();
    expect(dropLastAppliedConfiguration(once)).toEqual(once);
    expect(dropLastAppliedConfiguration({ metadata: { name: 'x' } })).toEqual({ metadata: { name: 'x' } });
  });

  it('says what a transform drops, through chains, so the decoder can leave it unread', () => {
    const identity = (o: KubeObject): KubeObject => o;
    const slim = declareDropped((o) => o, 'managedFieldSets');
    expect(droppedFields(stripManagedFields)).toBe('managedFields');
    expect(droppedFields(metadataOnly)).toBe('managedFields');
    expect(droppedFields(identity)).toBeUndefined();
    expect(droppedFields(undefined)).toBeUndefined();
    expect(droppedFields(chainTransforms(identity, slim))).toBe('managedFieldSets');
    expect(droppedFields(chainTransforms(slim, stripManagedFields))).toBe('managedFields');
    expect(droppedFields(chainTransforms(identity, dropLastAppliedConfiguration))).toBeUndefined();
  });
});
